// The knowledge view, as views/registry.ts lists it.

import { sessionIntake } from '../import/imports.svelte';
import type { ViewSpec } from '../views/views.svelte';
import KnowledgeSide from './KnowledgeSide.svelte';
import KnowledgeStats from './KnowledgeStats.svelte';
import KnowledgeView from './KnowledgeView.svelte';
import { knowledgeKey } from './keys';
import { knowledge } from './knowledge.svelte';

export const knowledgeView: ViewSpec = {
  name: 'knowledge',
  label: 'Knowledge',
  key: 'w',
  title: 'Knowledge: decisions, project rules, open questions (W)',
  testid: 'view-knowledge',
  side: KnowledgeSide,
  main: KnowledgeView,
  status: KnowledgeStats,
  intake: sessionIntake,
  onshow: () => void knowledge.start(),
  onkey: knowledgeKey,
  closeDialog: () => {
    if (!knowledge.form.open) return false;
    knowledge.form.close();
    return true;
  },
};

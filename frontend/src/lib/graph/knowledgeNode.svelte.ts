// The knowledge node selected in the graph: its item with its versions and
// supersession chain (Knowledge.Get), and opening it in the Knowledge view.

import { api } from '../api';
import { knowledge } from '../knowledge/knowledge.svelte';
import { toasts } from '../toasts/toasts.svelte';
import type { KnowledgeDetail } from '../types';
import { views } from '../views/views.svelte';

class KnowledgeNode {
  detail = $state.raw<KnowledgeDetail | null>(null);
  error = $state('');
  private seq = 0;

  async open(id: string) {
    const seq = ++this.seq;
    this.error = '';
    if (this.detail?.item.id !== id) this.detail = null;
    try {
      const d = await api.knowledge.get(id);
      if (seq === this.seq) this.detail = d;
    } catch (e) {
      if (seq === this.seq) this.error = e instanceof Error ? e.message : String(e);
    }
  }

  /** Shows the Knowledge view on the item's project, at the tab that lists its kind. */
  async showInKnowledgeView() {
    const it = this.detail?.item;
    if (!it) return;
    try {
      views.show('knowledge');
      if (knowledge.project !== it.project) await knowledge.setProject(it.project);
      await knowledge.setTab(it.kind === 'projectFact' ? 'rules' : it.kind === 'question' ? 'questions' : 'decisions');
    } catch (e) {
      toasts.fail(e);
    }
  }
}

export const knowledgeNode = new KnowledgeNode();

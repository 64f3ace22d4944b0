// The reasoning view, as views/registry.ts lists it.

import type { ViewSpec } from '../views/views.svelte';
import GraphList from './GraphList.svelte';
import NodeDetails from './NodeDetails.svelte';
import ReasoningPane from './ReasoningPane.svelte';
import ReasoningStats from './ReasoningStats.svelte';
import RunDialog from './RunDialog.svelte';
import { reasoningKey } from './keys';
import { reasoning, reasoningIntake } from './reasoning.svelte';
import { run } from './run.svelte';

export const reasoningView: ViewSpec = {
  name: 'reasoning',
  label: 'Reasoning',
  key: 'r',
  title: 'Reasoning graphs: how an agent’s reasoning grew (R)',
  testid: 'view-reasoning',
  side: GraphList,
  main: ReasoningPane,
  status: ReasoningStats,
  dialogs: RunDialog,
  intake: reasoningIntake,
  panel: NodeDetails,
  panelOpen: () => reasoning.selected !== null && !!reasoning.view,
  onshow: () => void reasoning.start(),
  onkey: reasoningKey,
  modal: () => run.open,
  closeDialog: () => run.close() || reasoning.closeTop(),
  clearSelection: () => reasoning.clearSelection(),
};

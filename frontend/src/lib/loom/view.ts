// The loom view, as views/registry.ts lists it.

import type { ViewSpec } from '../views/views.svelte';
import LoomDialogs from './LoomDialogs.svelte';
import LoomStats from './LoomStats.svelte';
import LoomView from './LoomView.svelte';
import TreeList from './TreeList.svelte';
import { loomKey } from './keys';
import { loom } from './loom.svelte';

export const loomView: ViewSpec = {
  name: 'loom',
  label: 'Loom',
  key: 'l',
  title: 'Loom: write with a model (L)',
  testid: 'view-loom',
  side: TreeList,
  main: LoomView,
  status: LoomStats,
  dialogs: LoomDialogs,
  intake: loom.files.intake,
  onshow: () => void loom.start(),
  onkey: loomKey,
  modal: () => loom.dialogOpen,
  closeDialog: () => loom.closeTop(),
};

// The graph view, as views/registry.ts lists it.

import type { ViewSpec } from '../views/views.svelte';
import { sessionIntake } from '../import/imports.svelte';
import GraphActions from '../analysis/GraphActions.svelte';
import LibraryStats from '../library/LibraryStats.svelte';
import Sidebar from '../library/Sidebar.svelte';
import GraphPane from './GraphPane.svelte';
import SelectedNode from './SelectedNode.svelte';
import { graph } from './graph.svelte';
import { graphKey } from './keys';

export const graphView: ViewSpec = {
  name: 'graph',
  label: 'Graph',
  key: 'g',
  title: 'Graph of sessions (G)',
  testid: 'view-graph',
  side: Sidebar,
  main: GraphPane,
  status: LibraryStats,
  actions: GraphActions,
  intake: sessionIntake,
  keepMounted: true,
  panel: SelectedNode,
  panelOpen: () => !!graph.selected,
  onkey: graphKey,
  clearSelection: () => {
    if (graph.path) {
      graph.path = null;
      return true;
    }
    if (!graph.selected) return false;
    void graph.selectNode(null);
    return true;
  },
};

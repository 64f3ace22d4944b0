// What the graph view draws, counted: the header says these numbers.

import type { GraphData } from '../types';

/**
 * The nodes and edges the graph draws: nodes of visible types; edges of
 * visible types, counted once, between two drawn nodes (as GraphView
 * builds and hides them); in focus mode, only the nodes of focus.
 */
export function visibleCounts(
  data: GraphData,
  hiddenNodeTypes: ReadonlySet<string>,
  hiddenEdgeTypes: ReadonlySet<string>,
  focus: ReadonlySet<string> | null = null,
): { nodes: number; edges: number } {
  const shown = new Set<string>();
  for (const n of data.nodes) if (!hiddenNodeTypes.has(n.type) && (!focus || focus.has(n.id))) shown.add(n.id);
  const seen = new Set<string>();
  let edges = 0;
  for (const e of data.edges) {
    if (seen.has(e.id)) continue;
    seen.add(e.id);
    if (!hiddenEdgeTypes.has(e.type) && shown.has(e.source) && shown.has(e.target)) edges++;
  }
  return { nodes: shown.size, edges };
}

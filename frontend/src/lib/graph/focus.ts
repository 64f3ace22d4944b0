// Focus mode: a node and its neighbourhood to a depth of 1 to 3 edges,
// whichever way the edges point, for reading one corner of a large graph.

import type { GraphEdge } from '../types';

/** The depths focus mode offers. */
export const FOCUS_DEPTHS = [1, 2, 3] as const;

/**
 * The ids within depth edges of id (id included), by a breadth-first walk
 * over edges in both directions; edges of a type in hidden are not walked.
 */
export function neighbourhood(edges: readonly GraphEdge[], id: string, depth: number, hidden: ReadonlySet<string> = new Set()): Set<string> {
  const adj = new Map<string, string[]>();
  const link = (a: string, b: string) => {
    let l = adj.get(a);
    if (!l) adj.set(a, (l = []));
    l.push(b);
  };
  for (const e of edges) {
    if (hidden.has(e.type)) continue;
    link(e.source, e.target);
    link(e.target, e.source);
  }
  const seen = new Set([id]);
  let frontier = [id];
  for (let d = 0; d < depth && frontier.length; d++) {
    const next: string[] = [];
    for (const n of frontier) {
      for (const m of adj.get(n) ?? []) {
        if (!seen.has(m)) {
          seen.add(m);
          next.push(m);
        }
      }
    }
    frontier = next;
  }
  return seen;
}

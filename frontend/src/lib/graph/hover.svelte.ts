// The pointer over the graph: the node or edge hovered, and its tooltip.
// A hovered node dims what it is not linked to; the keyboard's cursor
// borrows the node tooltip (cursor.svelte.ts).

import type { GraphEdge, GraphNode } from '../types';

/** A tooltip's place in the view (pixels) and what it says. */
export interface NodeTip {
  x: number;
  y: number;
  node: GraphNode;
}
export interface EdgeTip {
  x: number;
  y: number;
  edge: GraphEdge;
}

/**
 * Where a tooltip goes along one axis: off pixels past the point v, or, when
 * reach pixels would not fit in size, back pixels before it (4 at least).
 */
export const tipAt = (v: number, size: number, reach: number, back: number, off: number) =>
  v + reach > size ? Math.max(4, v - back) : v + off;

/** A node tooltip beside point p of a view width x height; off: pixels from p. */
export const nodeTipAt = (p: { x: number; y: number }, width: number, height: number, node: GraphNode, off = 14): NodeTip => ({
  x: tipAt(p.x, width, 390, 374, off),
  y: tipAt(p.y, height, 130, 120, off),
  node,
});

export class Hover {
  /** The node under the pointer. */
  node = $state<string | null>(null);
  /** The hovered node and its neighbours, to dim the rest. */
  neighbours: Set<string> | null = null;
  tooltip = $state<NodeTip | null>(null);
  /** The hovered edge's tooltip: its type and the boundary it crosses. */
  edgeTip = $state<EdgeTip | null>(null);
  /** The edges drawn, by id, for their tooltips. */
  private edgeById = new Map<string, GraphEdge>();

  /** New data is drawn: no tooltip of the last. */
  reset(edges: GraphEdge[]) {
    this.edgeById = new Map(edges.map((e) => [e.id, e]));
    this.edgeTip = null;
  }

  enterNode(id: string, neighbours: string[], node: GraphNode | undefined, p: { x: number; y: number }, width: number, height: number) {
    this.node = id;
    this.edgeTip = null;
    this.neighbours = new Set([id, ...neighbours]);
    if (node) this.tooltip = nodeTipAt(p, width, height, node);
  }

  leaveNode() {
    this.node = null;
    this.neighbours = null;
    this.tooltip = null;
  }

  /** Whether the edge got a tooltip (none while a node is hovered). */
  enterEdge(id: string, p: { x: number; y: number }, width: number, height: number): boolean {
    if (this.node) return false;
    const edge = this.edgeById.get(id);
    if (!edge) return false;
    this.edgeTip = { x: tipAt(p.x, width, 330, 314, 14), y: tipAt(p.y, height, 110, 100, 14), edge };
    return true;
  }

  leaveEdge() {
    this.edgeTip = null;
  }
}

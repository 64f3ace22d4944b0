// The graphology graph sigma draws, built from Graph.Graph's data: one
// node per segment at its lane position, sized by its entries, and the
// edges styled by type.

import Graph from 'graphology';
import type { GraphData, GraphNode } from '../types';
import { edgeColor, edgeStyle, nodeColor } from './colors';
import { KNOWLEDGE_PROGRAM, knowledgeColor, knowledgeSize, placeKnowledge } from './knowledgeNodes';
import { laneLayout, type LaneLayout, type StackShape } from './layout';

export type NodeAttrs = {
  x: number;
  y: number;
  size: number;
  color: string;
  label: string;
  kind: string;
  sessionId: string;
  /** Sigma's node program: unset (a circle) for segments, KNOWLEDGE_PROGRAM for knowledge nodes. */
  type?: string;
};
export type EdgeAttrs = { size: number; color: string; type: string; kind: string; curvature: number; confidence: number };

export type Model = Graph<NodeAttrs, EdgeAttrs>;

export const newModel = (): Model => new Graph<NodeAttrs, EdgeAttrs>({ multi: true, type: 'directed', allowSelfLoops: true });

/** Labels longer than this are cut (the tooltip and the panel say it all). */
const MAX_LABEL = 120;
const short = (s: string) => (s.length > MAX_LABEL ? `${s.slice(0, MAX_LABEL - 1)}…` : s);

/** A node's radius (pixels at rest) from its entries; smaller in a large graph. */
export const nodeSize = (entries: number, order: number) =>
  Math.min(12, (order > 3000 ? 2 : 3.5) + Math.log2(1 + Math.max(0, entries)) * (order > 3000 ? 0.5 : 0.8));

/**
 * The lane layout of nodes: segments in lanes, in the columns columnsFor
 * gives (laneLayout's), knowledge nodes under their segment
 * (knowledgeNodes.ts).
 */
export function layOut(nodes: readonly GraphNode[], columnsFor?: (s: StackShape) => number): LaneLayout {
  const layout = laneLayout(nodes.filter((n) => !n.knowledge), columnsFor);
  placeKnowledge(nodes, layout.positions);
  return layout;
}

/**
 * Fills model (cleared first) with data's nodes, at their lane positions,
 * and the edges between them; returns the lane layout.
 */
export function fillModel(model: Model, data: GraphData): LaneLayout {
  model.clear();
  const nodes = data.nodes ?? [];
  const layout = layOut(nodes);
  const order = nodes.length;
  for (const n of nodes) {
    const p = layout.positions.get(n.id)!;
    model.addNode(n.id, {
      x: p.x,
      y: p.y,
      size: n.knowledge ? knowledgeSize(order) : nodeSize(n.entries, order),
      color: (n.knowledge && knowledgeColor(n.type)) || nodeColor(n.type),
      label: short(n.label || n.type),
      kind: n.type,
      sessionId: n.sessionId,
      ...(n.knowledge ? { type: KNOWLEDGE_PROGRAM } : {}),
    });
  }
  for (const e of data.edges ?? []) {
    if (!model.hasNode(e.source) || !model.hasNode(e.target)) continue;
    if (model.hasEdge(e.id)) continue;
    const st = edgeStyle(e.type);
    // Arcs within a lane stay low, under the lane's title; arcs between lanes bend more.
    const sameLane = model.getNodeAttribute(e.source, 'sessionId') === model.getNodeAttribute(e.target, 'sessionId');
    model.addEdgeWithKey(e.id, e.source, e.target, {
      size: order > 3000 ? st.size * 0.7 : st.size,
      color: edgeColor(e.type, e.confidence),
      type: st.program,
      kind: e.type,
      curvature: sameLane ? 0.12 : 0.3,
      confidence: e.confidence ?? 1,
    });
  }
  return layout;
}

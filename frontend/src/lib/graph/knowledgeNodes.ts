// Knowledge nodes in the graph (Graph.Graph's nodes with `knowledge` set):
// their kinds, a colour per kind, drawn as squares (@sigma/node-square)
// beside the round segment nodes, and their place in the lane layout: a
// row just under the segment each came from, spread left to right.

import type { GraphNode } from '../types';
import { LANE_GAP } from './layout';

/** The kinds of knowledge node, in the Knowledge view's order (backend/knowledge.Kinds). */
export const KNOWLEDGE_KINDS = [
  'decision', 'correction', 'exception', 'failedApproach', 'insight', 'question', 'projectFact', 'lesson',
] as const;

/** Human names of the kinds, for the legend and the tooltip. */
export const KNOWLEDGE_LABELS: Record<string, string> = {
  decision: 'decision',
  correction: 'correction',
  exception: 'exception',
  failedApproach: 'failed approach',
  insight: 'insight',
  question: 'question',
  projectFact: 'project fact',
  lesson: 'lesson',
};

const KNOWLEDGE_COLORS: Record<string, string> = {
  decision: '#5f3dc4',
  correction: '#e8590c',
  exception: '#a61e4d',
  failedApproach: '#c92a2a',
  insight: '#0c8599',
  question: '#1971c2',
  projectFact: '#2b8a3e',
  lesson: '#b5811c',
};

/** Whether t is a knowledge kind (a node type the graph draws as a square). */
export const isKnowledgeKind = (t: string) => (KNOWLEDGE_KINDS as readonly string[]).includes(t);

/** The colour of a knowledge kind (undefined for a segment type). */
export const knowledgeColor = (kind: string): string | undefined => KNOWLEDGE_COLORS[kind];

/** The sigma node program knowledge nodes are drawn with (renderer's nodeProgramClasses). */
export const KNOWLEDGE_PROGRAM = 'square';

/** A knowledge node's half-width (pixels at rest): smaller than most segments, smaller still in a large graph. */
export const knowledgeSize = (order: number) => (order > 3000 ? 2 : 4);

/** How far under its segment a knowledge node sits, and how far apart the items of one segment are (graph units). */
const BELOW = LANE_GAP * 0.5;
const SPREAD = 0.16;

/**
 * Places knowledge nodes in a lane layout's positions (added to them): the
 * items of one segment in a row under it, centred; items whose segment is
 * not drawn in a row under the lowest lane. Returns how many it placed.
 */
export function placeKnowledge(nodes: readonly GraphNode[], positions: Map<string, { x: number; y: number }>): number {
  const bySegment = new Map<string, GraphNode[]>();
  const loose: GraphNode[] = [];
  for (const n of nodes) {
    if (!n.knowledge) continue;
    const seg = n.knowledge.segmentNodeId ?? '';
    if (seg && positions.has(seg)) {
      const list = bySegment.get(seg) ?? [];
      list.push(n);
      bySegment.set(seg, list);
    } else loose.push(n);
  }
  let placed = 0;
  for (const [seg, items] of bySegment) {
    const p = positions.get(seg)!;
    items.sort((a, b) => (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : a.id < b.id ? -1 : 1));
    const step = Math.min(SPREAD, 0.9 / Math.max(1, items.length));
    items.forEach((n, i) => {
      positions.set(n.id, { x: p.x + (i - (items.length - 1) / 2) * step, y: p.y - BELOW });
      placed++;
    });
  }
  if (loose.length) {
    let minY = 0;
    for (const p of positions.values()) minY = Math.min(minY, p.y);
    loose.forEach((n, i) => {
      positions.set(n.id, { x: i * SPREAD * 2, y: minY - LANE_GAP });
      placed++;
    });
  }
  return placed;
}

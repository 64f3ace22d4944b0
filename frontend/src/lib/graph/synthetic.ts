// Synthetic graphs for the 10,000-node check (unit bench and the e2e test
// hook `__rhizome.loadSynthetic`). Deterministic for a given size.

import type { GraphData, GraphEdge, GraphNode } from '../types';
import { EDGE_TYPES, NODE_TYPES } from './colors';

/** A small deterministic PRNG (mulberry32). */
function rng(seed: number) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** About n nodes in sessions of 5..60 segments over 12 projects, with continuation and cross edges. */
export function syntheticGraph(n: number, seed = 1): GraphData {
  const rand = rng(seed);
  const nodes: GraphNode[] = [];
  const edges: GraphEdge[] = [];
  const start = Date.UTC(2025, 0, 1);
  let session = 0;
  while (nodes.length < n) {
    const sid = `s${session}`;
    const project = `/home/dev/project-${session % 12}`;
    const count = Math.min(n - nodes.length, 5 + Math.floor(rand() * 56));
    const t0 = start + session * 3_600_000;
    for (let i = 0; i < count; i++) {
      const id = `n${nodes.length}`;
      nodes.push({
        id,
        label: `Synthetic segment ${i} of session ${session}`,
        type: NODE_TYPES[Math.floor(rand() * NODE_TYPES.length)],
        outcome: 'success',
        sessionId: sid,
        project,
        segment: i,
        timestamp: new Date(t0 + i * 60_000).toISOString(),
        cost: rand(),
        tokens: Math.floor(rand() * 50_000),
        entries: 1 + Math.floor(rand() * 40),
      });
      if (i > 0) {
        edges.push({ id: `e${edges.length}`, source: nodes[nodes.length - 2].id, target: id, type: 'continuation', confidence: 1, createdBy: 'boundary' });
      }
    }
    session++;
  }
  const cross = Math.floor(n / 10);
  for (let i = 0; i < cross; i++) {
    const a = nodes[Math.floor(rand() * nodes.length)].id;
    const b = nodes[Math.floor(rand() * nodes.length)].id;
    if (a === b) continue;
    edges.push({ id: `e${edges.length}`, source: a, target: b, type: EDGE_TYPES[1 + Math.floor(rand() * (EDGE_TYPES.length - 1))], confidence: rand(), createdBy: 'offline' });
  }
  return { nodes, edges, analysing: 0 };
}

import { describe, expect, it } from 'vitest';
import type { GraphNode } from '../types';
import { LANE_GAP, PROJECT_GAP, laneLayout, laneOrder } from './layout';
import { syntheticGraph } from './synthetic';

const node = (id: string, sessionId: string, segment: number, timestamp: string, project = '/p'): GraphNode => ({
  id, sessionId, segment, timestamp, project, label: id, type: 'coding', outcome: 'success', cost: 0, tokens: 0, entries: 1,
});

describe('laneLayout', () => {
  it('puts each session on its own lane, segments in order', () => {
    const { positions, lanes } = laneLayout([
      node('b1', 'B', 1, '2025-02-01T00:01:00Z'),
      node('a0', 'A', 0, '2025-01-01T00:00:00Z'),
      node('b0', 'B', 0, '2025-02-01T00:00:00Z'),
      node('a1', 'A', 1, '2025-01-01T00:05:00Z'),
      node('a2', 'A', 2, '2025-01-01T00:09:00Z'),
    ]);
    expect(lanes.map((l) => l.sessionId)).toEqual(['A', 'B']);
    expect(positions.get('a0')).toEqual({ x: 0, y: 0 });
    expect(positions.get('a2')).toEqual({ x: 2, y: 0 });
    expect(positions.get('b0')).toEqual({ x: 0, y: -LANE_GAP });
    expect(positions.get('b1')).toEqual({ x: 1, y: -LANE_GAP });
  });

  it('groups the lanes of a project and separates projects', () => {
    const { lanes } = laneLayout([
      node('x', 'S1', 0, '2025-01-01T00:00:00Z', '/one'),
      node('y', 'S2', 0, '2025-01-02T00:00:00Z', '/two'),
      node('z', 'S3', 0, '2025-01-03T00:00:00Z', '/one'),
    ]);
    expect(lanes.map((l) => l.sessionId)).toEqual(['S1', 'S3', 'S2']);
    expect(lanes[2].y).toBeCloseTo(-2 * LANE_GAP - PROJECT_GAP);
  });

  it('sets many short lanes in columns of about the target shape', () => {
    const nodes: GraphNode[] = [];
    for (let s = 0; s < 200; s++) for (let i = 0; i < 10; i++) nodes.push(node(`${s}-${i}`, `S${String(s).padStart(3, '0')}`, i, `2025-01-01T00:${String(i).padStart(2, '0')}:00Z`));
    const { positions, lanes } = laneLayout(nodes);
    const xs = [...positions.values()].map((p) => p.x);
    const ys = [...positions.values()].map((p) => p.y);
    const w = Math.max(...xs) - Math.min(...xs);
    const h = Math.max(...ys) - Math.min(...ys);
    expect(new Set(lanes.map((l) => l.x)).size).toBeGreaterThan(1);
    expect(w / h).toBeGreaterThan(0.8);
    expect(w / h).toBeLessThan(3.2);
    // Within a column, lanes keep their order going down.
    const first = lanes.filter((l) => l.x === 0);
    for (let i = 1; i < first.length; i++) expect(first[i].y).toBeLessThan(first[i - 1].y);
    // No two nodes share a position.
    expect(new Set([...positions.values()].map((p) => `${p.x},${p.y}`)).size).toBe(nodes.length);
  });

  it('is deterministic whatever the input order', () => {
    const g = syntheticGraph(500, 7);
    const a = laneLayout(g.nodes!);
    const b = laneLayout([...g.nodes!].reverse());
    for (const n of g.nodes!) expect(b.positions.get(n.id)).toEqual(a.positions.get(n.id));
  });

  // How fast is for `make bench` (layout.bench.ts, against a sort of the
  // same nodes in the same run), not for a test on a loaded machine.
  it('lays out 10,000 nodes, each at a place of its own', () => {
    const g = syntheticGraph(10_000);
    const { positions } = laneLayout(g.nodes!);
    expect(positions.size).toBe(10_000);
    expect(new Set([...positions.values()].map((p) => `${p.x},${p.y}`)).size).toBe(10_000);
  });
});

describe('laneOrder', () => {
  it('reads lane by lane, each lane left to right', () => {
    const l = laneLayout([
      node('b1', 'B', 1, '2025-02-01T00:01:00Z'),
      node('a0', 'A', 0, '2025-01-01T00:00:00Z'),
      node('b0', 'B', 0, '2025-02-01T00:00:00Z'),
      node('a1', 'A', 1, '2025-01-01T00:05:00Z'),
    ]);
    expect(laneOrder(l)).toEqual(['a0', 'a1', 'b0', 'b1']);
  });
  it('keeps every node of a large layout in columns', () => {
    const g = syntheticGraph(2000);
    const order = laneOrder(laneLayout(g.nodes ?? []));
    expect(new Set(order).size).toBe(g.nodes?.length);
  });
});

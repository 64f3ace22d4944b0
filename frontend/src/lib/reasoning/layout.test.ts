import { describe, expect, it } from 'vitest';
import type { ReasoningEdgeView, ReasoningNodeView, ReasoningSpan, ReasoningState } from '../types';
import { stepLabel, turnsText } from './history';
import { CARD_W, edgeMarks, layoutScene, neighbour, nodeMark, visibleIn } from './layout';

const node = (id: number, kind: string, state: ReasoningState = 'active'): ReasoningNodeView => ({
  id,
  uri: `rhizome:reasoning/g/${id}`,
  kind,
  state,
  thought: 'notes',
  text: '',
  notes: [],
  label: `node ${id}`,
  turnIds: [],
  addedAt: 0,
});
const edge = (src: number, dst: number): ReasoningEdgeView => ({ src, dst, rationale: '', kind: 'support', inferred: true });

// The example's shape after folding 3, 7 and 8 into summary 10 (edges
// 1->3 and 3->9 re-routed to the summary; 3->7 and 3->8 dropped).
const nodes = new Map<number, ReasoningNodeView>(
  [node(1, 'task'), node(2, 'subtask'), node(3, 'subtask', 'folded'), node(4, 'evidence'), node(5, 'evidence'), node(6, 'evidence', 'flushed'),
    node(7, 'evidence', 'folded'), node(8, 'evidence', 'folded'), node(9, 'evidence'), node(10, 'summary')].map((n) => [n.id, n]),
);
const states = new Map<number, ReasoningState>([...nodes.values()].map((n) => [n.id, n.state]));
const edges = [edge(1, 2), edge(1, 10), edge(2, 4), edge(2, 5), edge(2, 6), edge(10, 9), edge(4, 9)];
const spans: ReasoningSpan[] = [{ summary: 10, nodes: [3, 7, 8], edges: [[3, 7], [3, 8]], logged: true }];

describe('the reasoning scene', () => {
  it('is a tree from the task, folded nodes hidden inside their summary', () => {
    const s = layoutScene({ nodes, states, edges, spans, expanded: new Set() });
    expect(s.nodes.map((n) => n.id).sort((a, b) => a - b)).toEqual([1, 2, 4, 5, 6, 9, 10]);
    expect(s.byId.get(1)!.depth).toBe(0);
    expect(s.byId.get(9)!.parent).toBe(10); // its first edge in: 10 -> 9 comes before 4 -> 9
    expect(s.byId.get(10)!.span).toEqual({ count: 3, open: false });
    // Tree edges and one cross link.
    expect(s.edges.filter((e) => !e.tree).map((e) => `${e.src}>${e.dst}`)).toEqual(['4>9']);
    // Left to right: a child is one column right of its parent.
    expect(s.byId.get(2)!.x - s.byId.get(1)!.x).toBeGreaterThan(CARD_W);
    expect(s.boxes).toEqual([]);
  });

  it('opens a span inside a box under its summary, laid out by the dropped edges', () => {
    const s = layoutScene({ nodes, states, edges, spans, expanded: new Set([10]) });
    expect(s.byId.get(3)!.parent).toBe(10);
    expect(s.byId.get(7)!.parent).toBe(3);
    expect(s.byId.get(3)!.inSpan).toBe(10);
    expect(s.edges.filter((e) => e.inside).map((e) => `${e.src}>${e.dst}`)).toEqual(['3>7', '3>8', '10>3']);
    expect(s.boxes).toHaveLength(1);
    const box = s.boxes[0];
    for (const id of [3, 7, 8]) {
      const n = s.byId.get(id)!;
      expect(n.x >= box.x && n.y >= box.y && n.x + CARD_W <= box.x + box.w && n.y + 58 <= box.y + box.h).toBe(true);
    }
    // Nothing else is in the box.
    for (const n of s.nodes) {
      if ([3, 7, 8].includes(n.id)) continue;
      const overlaps = n.x < box.x + box.w && n.x + CARD_W > box.x && n.y < box.y + box.h && n.y + 58 > box.y;
      expect(overlaps, `node ${n.id} in the box`).toBe(false);
    }
    // 9 hangs from the summary (10 -> 9 comes first), outside the box.
    const n9 = s.byId.get(9)!;
    expect(n9.parent).toBe(10);
    expect(n9.y >= box.y + box.h || n9.y + 58 <= box.y).toBe(true);
  });

  it('shows only what exists at the step', () => {
    const before = new Map<number, ReasoningState>([1, 2, 3, 4, 5, 6, 7, 8, 9].map((id) => [id, 'active' as ReasoningState]));
    const s = layoutScene({
      nodes,
      states: before,
      edges: [edge(1, 2), edge(1, 3), edge(2, 4), edge(2, 5), edge(2, 6), edge(3, 7), edge(3, 8), edge(3, 9)],
      spans: [],
      expanded: new Set(),
    });
    expect(s.nodes).toHaveLength(9);
    expect(s.byId.has(10)).toBe(false);
    expect(s.byId.get(7)!.parent).toBe(3);
  });

  it('culls what is out of view and moves between nodes by arrows', () => {
    const s = layoutScene({ nodes, states, edges, spans, expanded: new Set() });
    const root = s.byId.get(1)!;
    const v = visibleIn(s, root.x, root.y, CARD_W, 58);
    expect(v.nodes.map((n) => n.id)).toContain(1);
    expect(v.nodes.length).toBeLessThan(s.nodes.length);
    expect(neighbour(s, 2, 'left')).toBe(1);
    expect(neighbour(s, 1, 'right')).not.toBeNull();
    expect(neighbour(s, 4, 'down')).toBe(5);
    expect(neighbour(s, 5, 'up')).toBe(4);
  });

  it('marks what a step changed', () => {
    const diff = {
      index: 1,
      kind: 'fold' as const,
      input: '',
      turnIds: [],
      nodesAdded: [10],
      nodesChanged: [{ id: 3, from: 'active' as const, to: 'folded' as const }],
      edgesAdded: [],
      edgesRemoved: [{ index: 5, src: 3, dst: 7, rationale: '' }],
      edgesRerouted: [{ from: { index: 1, src: 1, dst: 3, rationale: '' }, to: { index: 1, src: 1, dst: 10, rationale: 'r' } }],
      tmpIds: {},
    };
    expect(nodeMark(diff, 10)).toBe('added');
    expect(nodeMark(diff, 3)).toBe('changed');
    expect(nodeMark(diff, 2)).toBe('');
    const m = edgeMarks(diff);
    expect(m.rerouted.has('1>10')).toBe(true);
    expect(m.removed).toEqual([
      { src: 1, dst: 3, rerouted: true },
      { src: 3, dst: 7, rerouted: false },
    ]);
  });
});

describe('history words', () => {
  it('says what each operation did', () => {
    const base = { index: 0, turnIds: [], nodesAdded: [], nodesChanged: [], edgesAdded: 0, edgesRemoved: 0, edgesRerouted: 0, rationale: '', inside: [] };
    expect(stepLabel({ ...base, kind: 'init', nodesAdded: [1] })).toBe('init: the task');
    expect(stepLabel({ ...base, kind: 'patch', nodesAdded: [10, 11], edgesAdded: 2, turnIds: [16, 17] })).toBe('patch: +2 nodes, +2 edges · turns 16–17');
    expect(stepLabel({ ...base, kind: 'patch' })).toBe('patch: nothing added');
    expect(stepLabel({ ...base, kind: 'flush', nodesChanged: [6], rationale: 'repeats 5' })).toBe('flush node 6 · repeats 5');
    expect(stepLabel({ ...base, kind: 'fold', nodesAdded: [10], nodesChanged: [3, 7, 8], edgesRerouted: 2, rationale: 'settled' })).toBe(
      'fold 3 nodes into 10, 2 edges re-routed · settled',
    );
    expect(turnsText([3])).toBe('turn 3');
    expect(turnsText([2, 3, 10, 11])).toBe('turns 2, 3, 10, 11');
  });
});

describe('the scene at scale', () => {
  // A graph grown like MemoBrain's: nodes under earlier ones; every tenth
  // subtask's evidence folded into a summary hung where the subtask was,
  // some summaries folded again (nested spans), all spans open.
  function grown(n: number) {
    let seed = 7;
    const rand = (k: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % k;
    };
    const nodes = new Map<number, ReasoningNodeView>([[1, node(1, 'task')]]);
    const states = new Map<number, ReasoningState>([[1, 'active']]);
    let edges: ReasoningEdgeView[] = [];
    const spans: ReasoningSpan[] = [];
    let next = 2;
    const live = () => [...states].filter(([, s]) => s === 'active').map(([id]) => id);
    while (next <= n) {
      const ids = live();
      const p = ids[rand(ids.length)];
      const id = next++;
      nodes.set(id, node(id, rand(3) ? 'evidence' : 'subtask'));
      states.set(id, 'active');
      edges.push(edge(p, id));
      if (id % 40 === 0) {
        // Fold a live node with its live children.
        const target = ids[rand(ids.length)];
        if (target === 1) continue;
        const span = [target, ...edges.filter((e) => e.src === target && states.get(e.dst) === 'active').map((e) => e.dst)];
        const sid = next++;
        nodes.set(sid, node(sid, 'summary'));
        states.set(sid, 'active');
        const inside = edges.filter((e) => span.includes(e.src) && span.includes(e.dst));
        const kept: ReasoningEdgeView[] = [];
        for (const e of edges) {
          const a = span.includes(e.src);
          const b = span.includes(e.dst);
          if (a && b) continue;
          kept.push(a ? edge(sid, e.dst) : b ? edge(e.src, sid) : e);
        }
        edges = kept;
        for (const x of span) states.set(x, 'folded');
        spans.push({ summary: sid, nodes: span, edges: inside.map((e) => [e.src, e.dst]), logged: true });
      }
    }
    return { nodes, states, edges, spans };
  }

  it('keeps every card apart and every box to its span', () => {
    const g = grown(3000);
    const s = layoutScene({ ...g, expanded: new Set(g.spans.map((sp) => sp.summary)) });
    expect(s.nodes.length).toBe(g.nodes.size);
    const sorted = [...s.nodes].sort((a, b) => a.x - b.x || a.y - b.y);
    for (let i = 1; i < sorted.length; i++) {
      const a = sorted[i - 1];
      const b = sorted[i];
      if (a.x === b.x) expect(b.y - a.y, `nodes ${a.id} and ${b.id} overlap`).toBeGreaterThanOrEqual(58);
    }
    for (const box of s.boxes) {
      for (const n of s.nodes) {
        const inside = n.x >= box.x && n.y >= box.y && n.x + CARD_W <= box.x + box.w && n.y + 58 <= box.y + box.h;
        const overlaps = n.x < box.x + box.w && n.x + CARD_W > box.x && n.y < box.y + box.h && n.y + 58 > box.y;
        let member = false;
        for (let sp = n.inSpan; sp !== null; sp = s.byId.get(sp)?.inSpan ?? null) if (sp === box.summary) member = true;
        if (member) expect(inside, `node ${n.id} outside its box ${box.summary}`).toBe(true);
        else expect(overlaps, `node ${n.id} inside box ${box.summary}`).toBe(false);
      }
    }
  });
});

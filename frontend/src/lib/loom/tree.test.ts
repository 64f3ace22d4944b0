import { describe, expect, it } from 'vitest';
import { childOf, descend, layoutMap, mapData, nearestVisible, pathPositions, rememberChildren, siblingOf } from './tree';
import type { LoomNode, LoomPathStep } from '../types';

function node(id: string, children: string[] = [], extra: Partial<LoomNode> = {}): LoomNode {
  return {
    id, localId: id, parentIds: [], children, authorType: 'model', authorName: 'm', text: id, contentType: 'text',
    createdAt: '', bookmarked: false, pruned: false, hidden: false, excluded: false, family: id, position: true,
    contentHash: '', ...extra,
  };
}

// A dialogue tree: prompt r, three continuations a b c, a continued by a1;
// an edit of b is a sibling (b2). A buffer-mode version v of a stands at a's
// position (position false) and is listed nowhere as a child.
const nodes = [
  node('r', ['a', 'b', 'c', 'b2'], { authorType: 'human' }),
  node('a', ['a1']),
  node('b'),
  node('c', [], { pruned: true, hidden: true }),
  node('a1', [], { parentId: 'a' }),
  node('b2', [], { editedFrom: 'b', family: 'b', authorType: 'human' }),
  node('v', ['a1'], { editedFrom: 'a', family: 'a', position: false }),
];
const byId = new Map(nodes.map((n) => [n.id, n]));

const step = (id: string, sibs: string[], i: number): LoomPathStep => ({
  node: byId.get(id)!,
  runs: [],
  siblings: { ids: sibs, index: i },
  versions: { ids: [id], index: 0 },
});

describe('mapData', () => {
  it('builds the positions from children, versions left out', () => {
    const d = mapData(nodes);
    expect(d.id).toBe('r');
    expect(d.children.map((c) => c.id)).toEqual(['a', 'b', 'c', 'b2']);
    expect(d.children[0].children.map((c) => c.id)).toEqual(['a1']);
    expect(JSON.stringify(d)).not.toContain('"id":"v"');
  });

  it('folds collapsed positions and counts what is under them', () => {
    const d = mapData(nodes, (id) => id === 'r');
    expect(d.children).toEqual([]);
    expect(d.childCount).toBe(4);
    expect(d.folded).toBe(5);
  });

  it('hangs several roots under an invisible one and cuts cycles', () => {
    const d = mapData([node('r1', ['x']), node('r2'), node('x', ['r1x']), node('r1x', ['x'])]);
    expect(d.id).toBe('');
    expect(d.children.map((c) => c.id)).toEqual(['r1', 'r2']);
    const l = layoutMap(d);
    expect(l.points.map((p) => p.id).sort()).toEqual(['r1', 'r1x', 'r2', 'x']);
    expect(l.points.find((p) => p.id === 'r1')!.depth).toBe(0);
    expect(l.links.every((k) => k.source !== '')).toBe(true);
  });
});

describe('layoutMap', () => {
  it('places generations top-down and siblings side by side', () => {
    const l = layoutMap(mapData(nodes), { dx: 20, dy: 40, margin: 10 });
    const at = new Map(l.points.map((p) => [p.id, p]));
    expect(at.get('r')!.y).toBe(10);
    expect(at.get('a')!.y).toBe(50);
    expect(at.get('a1')!.y).toBe(90);
    const xs = ['a', 'b', 'c', 'b2'].map((id) => at.get(id)!.x);
    expect([...xs].sort((p, q) => p - q)).toEqual(xs);
    expect(Math.min(...l.points.map((p) => p.x))).toBe(10);
    expect(l.width).toBe(Math.max(...l.points.map((p) => p.x)) + 10);
    expect(l.height).toBe(100);
    expect(l.links).toHaveLength(5);
    expect(l.links[0].d).toMatch(/^M[\d.]+,10C/);
  });
});

describe('walking the path', () => {
  const path = [step('r', ['r'], 0), step('a', ['a', 'b', 'c', 'b2'], 0), step('a1', ['a1'], 0)];

  it('names steps by position and remembers the children visited', () => {
    expect(pathPositions(path)).toEqual(['r', 'a', 'a1']);
    const last = new Map<string, string>();
    rememberChildren(path, last);
    expect([...last]).toEqual([
      ['r', 'a'],
      ['a', 'a1'],
    ]);
    expect(descend('a', byId, last)).toBe('a1');
    expect(descend('r', byId, last)).toBe('a1');
    expect(descend('b', byId, last)).toBe('b');
  });

  it('steps to siblings, skipping pruned ones', () => {
    expect(siblingOf(path[1], 1, byId)).toBe('b');
    expect(siblingOf(path[1], -1, byId)).toBeNull();
    expect(siblingOf(step('b', ['a', 'b', 'c', 'b2'], 1), 1, byId)).toBe('b2');
    expect(siblingOf(step('b2', ['a', 'b', 'c', 'b2'], 3), -1, byId)).toBe('b');
  });

  it('steps down to the child last visited, else the first shown', () => {
    expect(childOf('r', byId, new Map())).toBe('a');
    expect(childOf('r', byId, new Map([['r', 'b2']]))).toBe('b2');
    expect(childOf('b', byId, new Map())).toBeNull();
  });
});

describe('nearestVisible: where the path goes when the node it is on is pruned', () => {
  // root ─ k1, k2, k3 (siblings); k2 has a child c.
  const n = (id: string, children: string[] = [], hidden = false) =>
    ({ id, children, hidden, position: true }) as unknown as LoomNode;
  const tree = (hidden: string[]) => {
    const all = [n('root', ['k1', 'k2', 'k3']), n('k1'), n('k2', ['c']), n('k3'), n('c')];
    return new Map(all.map((x) => [x.id, { ...x, hidden: hidden.includes(x.id) || (x.id === 'c' && hidden.includes('k2')) }]));
  };
  const steps = (end: string[]) => end.map((id, i) => ({ node: { id } as LoomNode, runs: [], siblings: { ids: i === 1 ? ['k1', 'k2', 'k3'] : [id], index: i === 1 ? ['k1', 'k2', 'k3'].indexOf(id) : 0 }, versions: { ids: [id], index: 0 } }) as LoomPathStep);

  it('moves to the next visible sibling, else the previous one', () => {
    expect(nearestVisible(steps(['root', 'k2']), 1, tree(['k2']), new Map())).toBe('k3');
    expect(nearestVisible(steps(['root', 'k3']), 1, tree(['k3']), new Map())).toBe('k2');
    expect(nearestVisible(steps(['root', 'k3']), 1, tree(['k2', 'k3']), new Map())).toBe('k1');
  });
  it('goes down the branch last visited under the sibling', () => {
    expect(nearestVisible(steps(['root', 'k1']), 1, tree(['k1']), new Map([['k2', 'c']]))).toBe('c');
  });
  it('ends at the parent when no sibling is left', () => {
    expect(nearestVisible(steps(['root', 'k2']), 1, tree(['k1', 'k2', 'k3']), new Map())).toBe('root');
  });
  it('stays when the step is still visible', () => {
    expect(nearestVisible(steps(['root', 'k2']), 1, tree([]), new Map())).toBeNull();
  });
});

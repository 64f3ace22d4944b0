import { describe, expect, it } from 'vitest';
import { counted, countsAt, stepLabel, turnsText } from './history';
import type { ReasoningStepInfo } from '../types';

describe('the words for a history', () => {
  it('counts in the singular for one', () => {
    expect(counted(1, 'step')).toBe('1 step');
    expect(counted(0, 'step')).toBe('0 steps');
    expect(counted(3, 'step')).toBe('3 steps');
  });

  it('says turns as a range when they follow each other', () => {
    expect(turnsText([5, 4])).toBe('turns 4–5');
    expect(turnsText([2, 3, 10])).toBe('turns 2, 3, 10');
    expect(turnsText([7])).toBe('turn 7');
  });

  it('says what a fold did', () => {
    const s = { index: 0, kind: 'fold', turnIds: [], nodesAdded: [10], nodesChanged: [3, 7, 8], edgesAdded: 0, edgesRemoved: 2, edgesRerouted: 1, rationale: 'settled' } as unknown as ReasoningStepInfo;
    expect(stepLabel(s)).toBe('fold 3 nodes into 10, 1 edge re-routed · settled');
  });
});

describe('the counts of a step', () => {
  it('counts the nodes that exist at the step, by kind and state, and its edges', () => {
    const kinds = new Map([
      [1, 'task'],
      [2, 'subtask'],
      [3, 'evidence'],
      [4, 'evidence'],
      [5, 'summary'],
    ]);
    const states = new Map<number, 'active' | 'flushed' | 'folded'>([
      [1, 'active'],
      [2, 'folded'],
      [3, 'flushed'],
      [4, 'folded'],
      [5, 'active'],
    ]);
    expect(countsAt(kinds, states, 3)).toEqual({
      nodes: 5,
      kinds: '2 evidence, 1 subtask, 1 summary, 1 task',
      edges: 3,
      flushed: 1,
      folded: 2,
    });
    // Before node 5 existed, and before anything was folded or flushed.
    const before = new Map<number, 'active' | 'flushed' | 'folded'>([1, 2, 3, 4].map((id) => [id, 'active']));
    const c = countsAt(kinds, before, 3);
    expect([c.nodes, c.kinds, c.flushed, c.folded]).toEqual([4, '2 evidence, 1 subtask, 1 task', 0, 0]);
  });
});

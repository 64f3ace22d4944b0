import { describe, expect, it } from 'vitest';
import { counted, stepLabel, turnsText } from './history';
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

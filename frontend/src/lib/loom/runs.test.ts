import { describe, expect, it } from 'vitest';
import { authorSpans, modelShare, plainSpans } from './runs';

describe('authorship spans', () => {
  it('joins runs by one author and drops empty ones', () => {
    const runs = [
      { text: 'Opens spreads yet ', author: 'model' as const },
      { text: '', author: 'human' as const },
      { text: 'quiet', author: 'model' as const },
      { text: ' (ok)', author: 'human' as const },
    ];
    expect(authorSpans(runs)).toEqual([
      { text: 'Opens spreads yet quiet', author: 'model' },
      { text: ' (ok)', author: 'human' },
    ]);
    expect(authorSpans(null)).toEqual([]);
    expect(modelShare(runs)).toBeCloseTo(23 / 28);
    expect(modelShare([])).toBe(0);
    expect(plainSpans('', 'model')).toEqual([]);
  });
});

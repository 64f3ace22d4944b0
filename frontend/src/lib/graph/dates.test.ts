import { describe, expect, it } from 'vitest';
import { dateRangeProblem } from './dates';

describe('dateRangeProblem', () => {
  it('is empty for a range that can match', () => {
    expect(dateRangeProblem('', '')).toBe('');
    expect(dateRangeProblem('2025-01-01', '')).toBe('');
    expect(dateRangeProblem('', '2025-01-01')).toBe('');
    expect(dateRangeProblem('2025-01-01', '2025-12-31')).toBe('');
    expect(dateRangeProblem('2025-03-04', '2025-03-04')).toBe('');
  });
  it('says when the from day is after the to day', () => {
    const p = dateRangeProblem('2025-12-31', '2025-01-01');
    expect(p).toMatch(/2025-12-31/);
    expect(p).toMatch(/after/);
    expect(p).toMatch(/2025-01-01/);
  });
  it('names a day that is not a date', () => {
    expect(dateRangeProblem('2025-02-30', '')).toMatch(/2025-02-30/);
    expect(dateRangeProblem('', 'soon')).toMatch(/soon/);
  });
});

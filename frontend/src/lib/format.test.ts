import { describe, expect, it } from 'vitest';
import { baseName, formatCost, formatMinutes, formatSessionCost, formatTokens, minutesBetween } from './format';

describe('format', () => {
  it('formats costs', () => {
    expect(formatCost(0)).toBe('$0.00');
    expect(formatCost(0.004)).toBe('<$0.01');
    expect(formatCost(1.234)).toBe('$1.23');
    expect(formatCost(1234.5)).toBe('$1,235');
    // A session with usage of a model that has no price says so.
    expect(formatSessionCost(0, true)).toBe('unpriced');
    expect(formatSessionCost(1.234, true)).toBe('$1.23+');
    expect(formatSessionCost(0, false)).toBe('$0.00');
  });
  it('formats tokens and durations', () => {
    expect(formatTokens(950)).toBe('950');
    expect(formatTokens(1234)).toBe('1.2k');
    expect(formatTokens(4_100_000)).toBe('4.1M');
    expect(formatMinutes(0.5)).toBe('30 s');
    expect(formatMinutes(185)).toBe('3 h 5 min');
    expect(formatMinutes(60 * 24 * 2 + 240)).toBe('2 d 4 h');
  });
  it('measures gaps and names paths', () => {
    expect(minutesBetween('2025-01-01T00:00:00Z', '2025-01-01T01:30:00Z')).toBe(90);
    expect(minutesBetween('', 'x')).toBeNull();
    expect(baseName('/Users/me/work/pi-mono/')).toBe('pi-mono');
    expect(baseName('C:\\work\\x')).toBe('x');
  });
});

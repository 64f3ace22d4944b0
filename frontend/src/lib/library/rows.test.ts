import { describe, expect, it } from 'vitest';
import { PAGE_ROWS, rowsToDraw } from './rows';

describe('rowsToDraw', () => {
  it('draws what is wanted, no more than the list holds', () => {
    expect(rowsToDraw(7000, PAGE_ROWS, -1)).toBe(PAGE_ROWS);
    expect(rowsToDraw(40, PAGE_ROWS, -1)).toBe(40);
    expect(rowsToDraw(7000, 3 * PAGE_ROWS, 10)).toBe(3 * PAGE_ROWS);
  });
  it('draws up to the selected row, in whole pages', () => {
    expect(rowsToDraw(7000, PAGE_ROWS, PAGE_ROWS)).toBe(2 * PAGE_ROWS);
    expect(rowsToDraw(7000, PAGE_ROWS, 5 * PAGE_ROWS + 3)).toBe(6 * PAGE_ROWS);
    expect(rowsToDraw(PAGE_ROWS + 5, PAGE_ROWS, PAGE_ROWS + 4)).toBe(PAGE_ROWS + 5);
  });
});

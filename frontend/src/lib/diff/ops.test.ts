import { describe, expect, it } from 'vitest';
import { diffStats, diffText, sideBySideRows, sideText, tokens, valueText } from './ops';
import type { DiffOp } from '../types';

// Loom.Diff of "Opens spreads yet quiet distant." and its edit (from a real run).
const EDIT: DiffOp[] = [
  { op: 'equal', text: 'Opens spreads yet ' },
  { op: 'insert', text: 'very ' },
  { op: 'equal', text: 'quiet distan' },
  { op: 'delete', text: 't' },
  { op: 'insert', text: 'ce' },
  { op: 'equal', text: '.' },
];

describe('sideBySideRows', () => {
  it('puts the old text left and the new text right', () => {
    const rows = sideBySideRows(EDIT);
    expect(rows).toHaveLength(1);
    expect(rows[0].changed).toBe(true);
    expect(rows[0].left).toEqual([
      { op: 'equal', text: 'Opens spreads yet quiet distan' },
      { op: 'delete', text: 't' },
      { op: 'equal', text: '.' },
    ]);
    expect(rows[0].right.map((s) => s.text).join('')).toBe('Opens spreads yet very quiet distance.');
    expect(rows[0].right.filter((s) => s.op === 'insert').map((s) => s.text)).toEqual(['very ', 'ce']);
  });

  it('starts a row at every line break both texts share', () => {
    const rows = sideBySideRows([
      { op: 'equal', text: 'one\ntwo ' },
      { op: 'delete', text: 'old' },
      { op: 'insert', text: 'new\nlines' },
      { op: 'equal', text: '\nthree\n' },
    ]);
    expect(rows.map((r) => r.changed)).toEqual([false, true, false]);
    expect(rows[0].left).toEqual([{ op: 'equal', text: 'one' }]);
    expect(rows[1].left).toEqual([
      { op: 'equal', text: 'two ' },
      { op: 'delete', text: 'old' },
    ]);
    expect(rows[1].right).toEqual([
      { op: 'equal', text: 'two ' },
      { op: 'insert', text: 'new\nlines' },
    ]);
    expect(rows[2].left).toEqual([{ op: 'equal', text: 'three' }]);
  });

  it('gives one empty row for no operations', () => {
    expect(sideBySideRows([])).toEqual([{ left: [], right: [], changed: false }]);
  });
});

describe('diffText', () => {
  it('diffs by characters like Loom.Diff', () => {
    const ops = diffText('Opens spreads yet quiet distant.', 'Opens spreads yet very quiet distance.', 'char');
    expect(sideText(ops, 'old')).toBe('Opens spreads yet quiet distant.');
    expect(sideText(ops, 'new')).toBe('Opens spreads yet very quiet distance.');
    expect(ops).toEqual(EDIT);
  });

  it('diffs by words', () => {
    expect(diffText('the quiet moss grows', 'the loud moss grows', 'word')).toEqual([
      { op: 'equal', text: 'the ' },
      { op: 'delete', text: 'quiet' },
      { op: 'insert', text: 'loud' },
      { op: 'equal', text: ' moss grows' },
    ]);
  });

  it('handles empty sides and identical texts', () => {
    expect(diffText('', 'new')).toEqual([{ op: 'insert', text: 'new' }]);
    expect(diffText('old', '')).toEqual([{ op: 'delete', text: 'old' }]);
    expect(diffText('same', 'same')).toEqual([{ op: 'equal', text: 'same' }]);
    expect(diffText('', '')).toEqual([]);
  });

  it('keeps emoji and combining marks whole', () => {
    expect(tokens('e\u0301👍🏽', 'char')).toEqual(['e\u0301', '👍🏽']);
    expect(diffText('a👍🏽b', 'a👍🏿b')).toEqual([
      { op: 'equal', text: 'a' },
      { op: 'delete', text: '👍🏽' },
      { op: 'insert', text: '👍🏿' },
      { op: 'equal', text: 'b' },
    ]);
  });

  it('counts what changed', () => {
    expect(diffStats(EDIT)).toEqual({ inserted: 7, deleted: 1 });
  });
});

describe('valueText', () => {
  it('shows strings as they are and other values as JSON', () => {
    expect(valueText('a "b"')).toBe('a "b"');
    expect(valueText(3)).toBe('3');
    expect(valueText(undefined)).toBe('');
    expect(valueText({ a: [1] })).toBe('{\n  "a": [\n    1\n  ]\n}');
  });
});

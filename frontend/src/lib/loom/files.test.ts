import { describe, expect, it } from 'vitest';
import { exportFileName, isLoomFile } from './files';

describe('exportFileName', () => {
  it('keeps letters, digits, spaces, - and _', () => {
    expect(exportFileName('Write a haiku about moss.')).toBe('Write a haiku about moss.loom.json');
    expect(exportFileName('a/b:c')).toBe('a_b_c.loom.json');
    expect(exportFileName('Mööse 2')).toBe('Mööse 2.loom.json');
  });
  it('has a name when the title has none', () => {
    expect(exportFileName('')).toBe('loom-tree.loom.json');
    expect(exportFileName('???')).toBe('loom-tree.loom.json');
  });
  it('recognises tree files', () => {
    expect(isLoomFile('x.loom.JSON')).toBe(true);
    expect(isLoomFile('x.jsonl')).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { bytesToBase64, readDroppedFile, walkEntry } from './files';

describe('bytesToBase64', () => {
  it('matches Buffer for small and large inputs', () => {
    for (const size of [0, 1, 2, 3, 100, 0x8000 + 7, 300_000]) {
      const bytes = new Uint8Array(size);
      for (let i = 0; i < size; i++) bytes[i] = (i * 131 + 7) & 0xff;
      expect(bytesToBase64(bytes)).toBe(Buffer.from(bytes).toString('base64'));
    }
  });
});

describe('readDroppedFile', () => {
  it('reads a File as base64 with its name', async () => {
    const text = '{"type":"session","id":"é"}\n';
    const f = new File([text], 's.jsonl');
    expect(await readDroppedFile(f)).toEqual({ name: 's.jsonl', content: Buffer.from(text).toString('base64') });
  });
});

describe('walkEntry', () => {
  const file = (fullPath: string) => ({
    isFile: true, isDirectory: false, name: fullPath.split('/').pop()!, fullPath,
    file: (ok: (f: File) => void) => ok(new File(['x'], fullPath.split('/').pop()!)),
  });
  const dir = (fullPath: string, children: unknown[]) => ({
    isFile: false, isDirectory: true, name: fullPath.split('/').pop()!, fullPath,
    createReader() {
      // Two batches, then empty: like browsers that page readEntries.
      const batches = [children.slice(0, 1), children.slice(1), []];
      return { readEntries: (ok: (e: unknown[]) => void) => ok(batches.shift() ?? []) };
    },
  });

  it('finds .jsonl files and Cline conversations at any depth and keeps relative names', async () => {
    const tree = dir('/sessions', [
      file('/sessions/b.jsonl'),
      file('/sessions/notes.txt'),
      dir('/sessions/--proj--', [file('/sessions/--proj--/a.jsonl')]),
      dir('/sessions/17_x', [file('/sessions/17_x/17_x.json'), file('/sessions/17_x/17_x.messages.json')]),
    ]);
    const got = await walkEntry(tree as never);
    expect(got.map((p) => p.name)).toEqual(['sessions/--proj--/a.jsonl', 'sessions/17_x/17_x.messages.json', 'sessions/b.jsonl']);
  });

  it('keeps a file dropped on its own whatever its name', async () => {
    const got = await walkEntry(file('/notes.txt') as never);
    expect(got.map((p) => p.name)).toEqual(['notes.txt']);
  });
});

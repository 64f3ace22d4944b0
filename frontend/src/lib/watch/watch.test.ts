import { describe, expect, it } from 'vitest';
import { watch } from './watch.svelte';
import type { SessionSummary, WatchImported } from '../types';

const session = (id: string) => ({ id, path: `/home/u/.claude/projects/p/${id}.jsonl` }) as SessionSummary;
const imported = (initial: boolean, ...files: [string, string][]): WatchImported =>
  ({ at: new Date().toISOString(), millis: 3, initial, files: files.map(([sessionId, status]) => ({ sessionId, status })) }) as WatchImported;

describe('live sessions', () => {
  it('are those the running watcher imported or grew while following its folders, not on its first pass', () => {
    watch.status = { running: true, folders: ['/home/u/.claude/projects'], imports: 1, liveSeconds: 60 };
    watch.firstPass = { file: 'a.jsonl', fileIndex: 0, fileCount: 2, bytesDone: 1, bytesTotal: 2, entries: 0, phase: 'reading', committed: 0 };
    // The first run finds a whole ~/.claude: none of it is being written for all it knows.
    watch.imported(imported(true, ['old', 'imported'], ['grown-since', 'appended']));
    expect(watch.isLive(session('old'))).toBe(false);
    expect(watch.isLive(session('grown-since'))).toBe(false);
    expect(watch.firstPass).toBeNull(); // the first pass is over: its bar goes
    // Then an agent writes.
    watch.imported(imported(false, ['old', 'appended'], ['new', 'imported'], ['bad', 'failed']));
    expect(watch.isLive(session('old'))).toBe(true);
    expect(watch.isLive(session('new'))).toBe(true);
    expect(watch.isLive(session('bad'))).toBe(false);
    // A minute later, or with the watcher stopped, nothing is.
    watch.now = Date.now() + 61_000;
    expect(watch.isLive(session('old'))).toBe(false);
    watch.now = Date.now();
    watch.status = { ...watch.status, running: false };
    expect(watch.isLive(session('new'))).toBe(false);
  });
});

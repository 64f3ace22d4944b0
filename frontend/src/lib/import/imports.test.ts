import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ImportReport } from '../types';
import { imports } from './imports.svelte';

// What `rhizome import --json` reported for app/samples/session-with-compaction.jsonl
// (the same shape Import.ImportPaths answers and import:done carries).
const sampleReport = (): ImportReport => ({
  files: [
    {
      path: '/work/wt-front/app/samples/session-with-compaction.jsonl',
      format: 'pi',
      version: 1,
      sessionId: '5fd1e58c-9635-410e-a644-133a96057c90',
      status: 'imported',
      entries: 463,
      newEntries: 463,
      entriesByType: { compaction: 1, message: 454, 'message:assistant': 220, 'message:bashExecution': 1, 'message:toolResult': 189, 'message:user': 44, thinking_level_change: 8 },
      malformedCount: 0,
      malformedLines: [],
      pendingTail: false,
      segments: 3,
      boundariesByType: { compaction: 1, resume: 1 },
      edgesByType: { compaction: 1, resume: 1 },
    },
  ],
  totals: { files: 1, imported: 1, unchanged: 0, appended: 0, failed: 0, entries: 463, segments: 3, malformed: 0, readableSeconds: 0.2, completeSeconds: 0 },
});

describe('the import panel', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => {
    vi.useRealTimers();
    imports.showPanel = false;
  });

  it('goes away after a clean import, even when its import:done arrives after the answer', async () => {
    // In serve mode the event stream and the call's answer race: the answer may come first.
    await imports.run(async () => sampleReport());
    imports.onDone(sampleReport());
    expect(imports.showPanel).toBe(true);
    await vi.advanceTimersByTimeAsync(8000);
    expect(imports.showPanel).toBe(false);
  });

  it('shows the report of an import this window did not start, and keeps it', async () => {
    const other = sampleReport();
    other.totals.imported = 0;
    other.totals.unchanged = 1;
    other.files![0].status = 'unchanged';
    imports.onDone(other);
    expect(imports.showPanel).toBe(true);
    expect(imports.report).toEqual(other);
    await vi.advanceTimersByTimeAsync(8000);
    expect(imports.showPanel).toBe(true);
  });
});

describe('an import with no file', () => {
  afterEach(() => {
    imports.showPanel = false;
  });

  it('knows its import:done (the same report sent again) from its answer', async () => {
    const answer: ImportReport = { files: [], totals: { files: 0, imported: 0, unchanged: 0, appended: 0, failed: 0, entries: 0, segments: 0, malformed: 0, readableSeconds: 0, completeSeconds: 0 } };
    await imports.run(async () => answer);
    imports.showPanel = false;
    imports.onDone({ ...answer, files: [] });
    expect(imports.showPanel).toBe(false);
  });
});

describe('an import that makes sessions readable as it goes', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
    imports.progress = null;
  });

  it('reads the library again when more files are committed, at most once a second', async () => {
    const { library } = await import('../library/library.svelte');
    const refresh = vi.spyOn(library, 'requestRefresh').mockImplementation(() => {});
    const at = (committed: number) => ({ file: 'a.jsonl', fileIndex: 0, fileCount: 9, bytesDone: 1, bytesTotal: 9, entries: 0, phase: 'reading', committed });
    imports.progress = null; // a new import
    imports.onProgress(at(0));
    expect(refresh).not.toHaveBeenCalled();
    imports.onProgress(at(3)); // the first sessions: shown at once
    expect(refresh).toHaveBeenCalledTimes(1);
    imports.onProgress(at(5)); // more within the second: later
    imports.onProgress(at(5));
    expect(refresh).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1000);
    imports.onProgress(at(5));
    expect(refresh).toHaveBeenCalledTimes(2);
    imports.onProgress(at(5)); // nothing new
    vi.advanceTimersByTime(5000);
    imports.onProgress(at(5));
    expect(refresh).toHaveBeenCalledTimes(2);
  });
});

// Importing sessions: the import running (its progress, the stage before
// Go reports any), its report or error, and the results panel. Files come
// from a drop, the file input, the native dialog (the window) or the
// bundled samples; sessionIntake is how the graph view takes them.

import { api } from '../api';
import { errorText } from '../format';
import { library } from '../library/library.svelte';
import type { ImportProgress, ImportReport } from '../types';
import { filesOfDrop, type PickedFile } from './files';
import type { Intake } from './intake';

/** A report's content, the same whether it came as a call's answer (lists normalised) or as import:done. */
const reportKey = (r: ImportReport) => JSON.stringify({ files: r.files, totals: r.totals });

class Imports {
  running = $state(false);
  progress = $state<ImportProgress | null>(null);
  /** What the import is doing before the Go side reports progress ("Reading 3 files…"). */
  stage = $state('');
  report = $state.raw<ImportReport | null>(null);
  error = $state('');
  /** The results panel is shown. */
  showPanel = $state(false);

  /** import:done came while this window's import ran. */
  private doneSeen = false;
  /**
   * The report of this window's last import while its import:done has not
   * come: in serve mode the event stream and the call's answer race, and
   * the event may come after the answer. It is that import's, not another's.
   */
  private echo: string | null = null;

  /** Subscribes to import:progress and import:done; returns the unsubscribe. */
  listen(): () => void {
    const offs = [api.on('import:progress', (p) => this.onProgress(p)), api.on('import:done', (r) => this.onDone(r))];
    return () => offs.forEach((off) => off());
  }

  private start() {
    this.doneSeen = false;
    this.echo = null;
    this.running = true;
    this.progress = null;
    this.stage = '';
    this.report = null;
    this.error = '';
    this.showPanel = true;
  }

  /** Runs an import, the panel showing its progress and report; then the library is shown again. */
  async run(work: () => Promise<ImportReport>) {
    this.start();
    try {
      const report = await work();
      this.report = report;
      if (!this.doneSeen) this.echo = reportKey(report);
      // A clean import needs no reading: the panel goes away by itself.
      if (report.totals.failed === 0 && report.totals.malformed === 0 && report.files?.every((f) => !f.pendingTail)) {
        setTimeout(() => {
          if (this.report === report && !this.running) this.showPanel = false;
        }, 8000);
      }
    } catch (e) {
      this.error = errorText(e);
    } finally {
      this.running = false;
      this.stage = '';
    }
    await library.refresh();
  }

  /** Closes the results panel unless an import runs (a node was selected, Esc). Whether it closed. */
  closePanel(): boolean {
    if (!this.showPanel || this.running) return false;
    this.showPanel = false;
    return true;
  }

  /** The files committed when the library was last read again during an import, and when. */
  private shownCommitted = 0;
  private shownAt = 0;

  /**
   * import:progress arrived. A long import makes its sessions readable as it
   * goes (committed): the library is read again when more are, at most once
   * a second, so that the sidebar fills while the rest is read.
   */
  onProgress(p: ImportProgress) {
    const earlier = this.progress;
    this.progress = p;
    if (!earlier || p.committed < this.shownCommitted) this.shownCommitted = 0; // another import
    const now = Date.now();
    if (p.committed > this.shownCommitted && (this.shownCommitted === 0 || now - this.shownAt >= 1000)) {
      this.shownCommitted = p.committed;
      this.shownAt = now;
      library.requestRefresh();
    }
  }

  /** import:done arrived: the report of an import, this window's or another's (the CLI, a second window). */
  onDone(r: ImportReport) {
    if (this.running) {
      this.doneSeen = true;
      return;
    }
    if (this.echo !== null && reportKey(r) === this.echo) {
      this.echo = null;
      return;
    }
    // A report for an import this window did not start (another window, the CLI).
    this.report = r;
    this.showPanel = true;
  }

  /** The bundled real sample sessions. */
  importSamples() {
    return this.run(() => api.importSamples());
  }

  /** The native file dialog (the window only). */
  chooseAndImport() {
    return this.run(() => api.chooseAndImport());
  }

  /** Files or folders by path (dropped on the window). */
  importPaths(paths: string[]) {
    return this.run(() => api.importPaths(paths));
  }

  /** Files read in the page (a browser drop or the file input), sent to Go. */
  importPicked(pending: Promise<PickedFile[]>) {
    return this.run(async () => {
      this.stage = 'Reading files…';
      const picked = await pending;
      if (picked.length === 0) throw new Error('Nothing to import: drop session files (.jsonl of pi, Claude Code, Gemini CLI, Qwen Code, Copilot CLI or Codex, Cline .messages.json) or folders holding them; OpenCode\'s sessions are read from its database (opencode.db) in its watched folder or with rhizome import.');
      const total = picked.reduce((a, p) => a + p.file.size, 0);
      this.stage = `Sending ${picked.length} file${picked.length === 1 ? '' : 's'} (${(total / 1048576).toFixed(1)} MB) to Rhizome…`;
      return api.importDropped(picked);
    });
  }
}

export const imports = new Imports();

/** Session files: what the graph view takes. */
export const sessionIntake: Intake = {
  overlay: { title: 'Drop to import', hint: 'pi session files (.jsonl) or folders holding them', testid: 'drop-overlay' },
  picker: { accept: '.jsonl,.json', testid: 'import-input' },
  busy: () => imports.running,
  chooseNative: () => void imports.chooseAndImport(),
  readDrop: filesOfDrop,
  take: (files) => void imports.importPicked(files),
  takePaths: (paths) => {
    if (paths.length && !imports.running) void imports.importPaths(paths);
  },
};

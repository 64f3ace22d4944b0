// Watched folders (Watch.*): the agents' session folders the watcher
// imports as they are written, each with its switch; the watcher's status;
// and which sessions are live (written in the last liveSeconds) or kept
// after their source file was deleted. Reloaded on watch:changed.

import { api } from '../api';
import type { ImportProgress, SessionSummary, WatchImported, WatchStatus, WatchedFolder } from '../types';

/** How often "live" marks are re-checked against the clock, in ms. */
const TICK_MS = 5000;

class WatchState {
  folders = $state.raw<WatchedFolder[]>([]);
  status = $state.raw<WatchStatus | null>(null);
  /** Why the last change failed (Go's text). */
  error = $state('');
  /** The folder whose switch is being changed. */
  busy = $state('');
  /** The clock the live marks compare with (ms since the epoch). */
  now = $state(Date.now());
  /** How far the watcher's first pass over its folders is (a whole ~/.claude on the first run); null when none runs. */
  firstPass = $state.raw<ImportProgress | null>(null);
  /** When the watcher last imported or grew each session while following the folders (ms since the epoch), by id. */
  liveAt = $state.raw(new Map<string, number>());

  liveSeconds = $derived(this.status?.liveSeconds ?? 60);

  /** Subscribes to the watcher's events and ticks the clock; returns the unsubscribe. */
  listen(): () => void {
    const offs = [
      api.on('watch:changed', (s) => {
        this.status = s;
        void this.loadFolders();
      }),
      api.on('watch:imported', (e) => this.imported(e)),
      api.on('watch:progress', (p) => (this.firstPass = p.phase === 'done' ? null : p)),
    ];
    const timer = setInterval(() => (this.now = Date.now()), TICK_MS);
    return () => {
      offs.forEach((off) => off());
      clearInterval(timer);
    };
  }

  async load() {
    await Promise.all([this.loadFolders(), this.loadStatus()]);
  }

  private async loadFolders() {
    try {
      this.folders = await api.watch.folders();
    } catch (e) {
      this.error = message(e);
    }
  }

  private async loadStatus() {
    try {
      this.status = await api.watch.status();
    } catch (e) {
      this.error = message(e);
    }
  }

  /** Runs a change of the folder list; the list Go returns replaces ours. */
  private async change(path: string, run: () => Promise<WatchedFolder[]>) {
    this.busy = path;
    this.error = '';
    try {
      this.folders = await run();
      await this.loadStatus();
    } catch (e) {
      this.error = message(e);
    } finally {
      this.busy = '';
    }
  }

  setEnabled(path: string, enabled: boolean) {
    return this.change(path, () => api.watch.setFolderEnabled(path, enabled));
  }

  add(path: string) {
    return this.change(path, () => api.watch.addFolder(path));
  }

  choose() {
    return this.change('', () => api.watch.chooseFolder());
  }

  remove(path: string) {
    return this.change(path, () => api.watch.removeFolder(path));
  }

  /**
   * Takes a watcher import: the sessions it imported or grew while
   * following the folders are being written now. Its first pass over them
   * (e.initial: what they held when it started, a whole ~/.claude on the
   * first run) says nothing of that.
   */
  imported(e: WatchImported) {
    const at = Date.parse(e.at);
    this.now = Date.now();
    if (e.initial) {
      this.firstPass = null;
      return;
    }
    // Sessions not written for liveSeconds are live no more: dropped.
    const live = new Map([...this.liveAt].filter(([, t]) => this.now - t < this.liveSeconds * 1000));
    for (const f of e.files) {
      if (f.sessionId && (f.status === 'imported' || f.status === 'appended')) live.set(f.sessionId, Number.isFinite(at) ? at : this.now);
    }
    this.liveAt = live;
  }

  /**
   * s is being written: the running watcher imported or grew it in the last
   * liveSeconds while following its folder (a file dropped or imported by
   * hand, one the watcher found when it started, or one whose source is
   * gone, is not live).
   */
  isLive(s: SessionSummary | undefined): boolean {
    if (!s || s.sourceDeleted || !this.status?.running) return false;
    const t = this.liveAt.get(s.id);
    return t !== undefined && this.now - t < this.liveSeconds * 1000;
  }
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export const watch = new WatchState();

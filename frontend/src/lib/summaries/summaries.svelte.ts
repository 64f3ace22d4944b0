// Summaries (docs/CONTRACT.md, "Summaries"): the background queue as the
// top bar shows it (summary:progress), what a summary that changed makes
// the other views reload (summary:updated), and the editor of a title or
// summary a person opens (pencil, or E). The UI never waits for a model:
// the views show what the library holds, the offline summary until the
// model's arrives, and reload when it does.

import { api } from '../api';
import { errorText } from '../format';
import { library } from '../library/library.svelte';
import { loom } from '../loom/loom.svelte';
import { nodeReader } from '../node/node.svelte';
import { toasts } from '../toasts/toasts.svelte';
import type { SummaryKind, SummaryQueueStatus, SummaryView } from '../types';

/** The item URI of a knowledge-graph node, a session, a loom tree. */
export const nodeItem = (id: string) => `rhizome:node/${id}`;
export const sessionItem = (id: string) => `rhizome:session/${id}`;
export const loomTreeItem = (id: string) => `rhizome:loom/${id}`;
/** A project's item: its path percent-encoded as backend/link does (all but A-Z a-z 0-9 - . _ ~). */
export const projectItem = (path: string) =>
  `rhizome:project/${encodeURIComponent(path).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase())}`;

/** What an item that has a title is: its title can be edited. */
export const hasTitle = (kind: SummaryKind) => kind === 'session' || kind === 'loomTree' || kind === 'project';

/** Words for a summary's source, as the panels say it. */
export function sourceText(source: string): string {
  if (source === 'human') return 'edited by you';
  if (source === 'offline') return 'offline summary';
  if (source === 'pi') return "written by the session's agent (its compaction or branch summary)";
  if (source.startsWith('model:')) return `by ${source.slice('model:'.length)}`;
  return 'no summary yet';
}

/** An item open in the editor: what it shows and what was generated. */
export interface Editing {
  item: string;
  kind: SummaryKind;
  /** What the item is, for the dialog's title ("session", "segment", …). */
  what: string;
  view: SummaryView;
}

class Summaries {
  status = $state.raw<SummaryQueueStatus | null>(null);
  /** The highest count of items in the queue since it was last empty: the bar's whole. */
  total = $state(0);
  /** Seconds left to analyse the sessions still being analysed, at the rate seen so far; 0 unknown. */
  analysingEta = $state(0);
  /** The most sessions seen being analysed since none were: the analysis bar's whole. */
  analysingTotal = $state(0);
  private analysingFrom: { at: number; count: number } | null = null;
  editing = $state.raw<Editing | null>(null);
  saving = $state(false);
  error = $state('');
  /** Bumped when summaries changed: views that show summaries reload. */
  version = $state(0);

  private reloadTimer: ReturnType<typeof setTimeout> | undefined;
  private pending = new Set<string>();

  /** Subscribes to summary:progress and summary:updated; returns the unsubscribe. */
  listen(): () => void {
    void this.loadStatus();
    const offs = [
      api.on('summary:progress', (s) => this.setStatus(s)),
      api.on('summary:updated', (u) => {
        for (const it of u?.items ?? []) this.pending.add(it);
        this.requestReload();
      }),
    ];
    return () => offs.forEach((off) => off());
  }

  private setStatus(s: SummaryQueueStatus) {
    this.statusSeq++;
    const before = this.status;
    this.status = s;
    // A model failing or giving up changes no summary, but the items show
    // the error: the open node reads its summary again.
    if (before && (before.retrying !== s.retrying || before.failed !== s.failed) && nodeReader.id) {
      this.pending.add(nodeItem(nodeReader.id));
      this.requestReload();
    }
    const left = s.queued + s.running;
    this.total = left === 0 ? 0 : Math.max(this.total, left + s.done);
    this.estimate(s.analysing ?? 0);
  }

  /** Estimates the time left to analyse n sessions from the rate since the count was highest. */
  private estimate(n: number) {
    const now = Date.now();
    if (n === 0) {
      this.analysingFrom = null;
      this.analysingEta = 0;
      this.analysingTotal = 0;
      return;
    }
    if (!this.analysingFrom || n > this.analysingFrom.count) this.analysingFrom = { at: now, count: n };
    this.analysingTotal = Math.max(this.analysingTotal, n);
    const done = this.analysingFrom.count - n;
    const secs = (now - this.analysingFrom.at) / 1000;
    this.analysingEta = done > 0 && secs > 1 ? Math.ceil((n * secs) / done) : 0;
  }

  /** Counts the statuses received, so that an older answer never replaces a newer event. */
  private statusSeq = 0;

  async loadStatus() {
    const seq = this.statusSeq;
    try {
      const s = await api.summaries.queueStatus();
      if (seq === this.statusSeq) this.setStatus(s);
    } catch {
      // The status bar stays empty; nothing else depends on it.
    }
  }

  /** Coalesces bursts of summary:updated (a model writing many) into one reload a second at most. */
  private requestReload() {
    if (this.reloadTimer) return;
    this.reloadTimer = setTimeout(() => {
      this.reloadTimer = undefined;
      const items = [...this.pending];
      this.pending.clear();
      this.version++;
      if (items.some((i) => !i.startsWith('rhizome:loom/'))) library.requestRefresh();
      if (nodeReader.id && items.includes(nodeItem(nodeReader.id))) void nodeReader.reloadDetail();
      if (items.some((i) => i.startsWith('rhizome:loom/'))) {
        loom.list.request();
        if (loom.tree.id && items.some((i) => i.startsWith(loomTreeItem(loom.tree.id)))) void loom.tree.refresh();
      }
    }, 400);
  }

  async cancel() {
    try {
      this.setStatus(await api.summaries.cancel());
    } catch (e) {
      toasts.fail(e);
    }
  }

  /** The summary item shows (Summaries.Get). */
  view(item: string): Promise<SummaryView> {
    return api.summaries.get(item);
  }

  /** Opens the editor on item (what names it in the dialog's title). */
  async edit(item: string, what: string) {
    this.error = '';
    try {
      const view = await api.summaries.get(item);
      this.editing = { item, kind: view.kind, what, view };
    } catch (e) {
      toasts.fail(e);
    }
  }

  /**
   * Saves the person's edit: the fields they changed from what was shown;
   * a field left as it was stays generated. Throws nothing: the dialog
   * shows the error.
   */
  async save(title: string, text: string): Promise<boolean> {
    const e = this.editing;
    if (!e) return false;
    const t = title.trim() === e.view.title.trim() && e.view.source !== 'human' ? '' : title.trim();
    const x = text.trim() === e.view.text.trim() && e.view.source !== 'human' ? '' : text.trim();
    if (!t && !x) {
      this.editing = null;
      return true;
    }
    this.saving = true;
    try {
      await api.summaries.edit(e.item, t, x);
      this.editing = null;
      this.changed(e.item);
      return true;
    } catch (err) {
      this.error = errorText(err);
      return false;
    } finally {
      this.saving = false;
    }
  }

  /** Takes the person's edit back: the generated summary shows again. */
  async revert() {
    const e = this.editing;
    if (!e) return;
    this.saving = true;
    try {
      await api.summaries.revert(e.item);
      this.editing = null;
      this.changed(e.item);
    } catch (err) {
      this.error = errorText(err);
    } finally {
      this.saving = false;
    }
  }

  /** Asks for item's summary to be made again (with the model when summaries use one). */
  async regenerate(item: string) {
    try {
      this.setStatus(await api.summaries.regenerate([item]));
    } catch (e) {
      toasts.fail(e);
    }
  }

  /** An edit saved here: the views reload at once (summary:updated follows too). */
  private changed(item: string) {
    this.pending.add(item);
    this.requestReload();
  }
}

export const summaries = new Summaries();

/**
 * The summary of item() as it is now: read again when the item changes, a
 * summary changes or the queue moves (null until read, or when it cannot
 * be). Call it while a component is set up: its effect lives with it.
 */
export function followSummary(item: () => string): { readonly view: SummaryView | null } {
  let view = $state.raw<SummaryView | null>(null);
  $effect(() => {
    const it = item();
    void summaries.version;
    void summaries.status;
    let live = true;
    summaries
      .view(it)
      .then((v) => {
        if (live) view = v;
      })
      .catch(() => {
        if (live) view = null;
      });
    return () => {
      live = false;
    };
  });
  return {
    get view() {
      return view;
    },
  };
}

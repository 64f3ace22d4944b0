// The loom tree open in the view (Loom.Tree): every node, for the map and
// the bookmarks, and which positions of the map are collapsed. Opening a
// tree resets what was about the last one: the path, the editor, a
// generation's failure.

import { SvelteMap } from 'svelte/reactivity';
import { api } from '../api';
import { errorText } from '../format';
import type { ActivePath, LoomTreeView } from '../types';
import type { Loom } from './loom.svelte';

export class OpenTree {
  /** The open tree's id ("" = none). */
  id = $state('');
  view = $state.raw<LoomTreeView | null>(null);
  loading = $state(false);
  /** Why the open tree could not be shown. */
  error = $state('');
  /** Collapsed or expanded by the person; otherwise pruned positions start collapsed. */
  collapsed = new SvelteMap<string, boolean>();

  info = $derived(this.view?.tree ?? null);
  mode = $derived(this.view?.tree.mode ?? 'dialogue');
  byId = $derived(new Map((this.view?.nodes ?? []).map((n) => [n.id, n])));
  bookmarks = $derived((this.view?.nodes ?? []).filter((n) => n.bookmarked));

  private seq = 0;
  private reloadTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(private loom: Loom) {}

  /** Opens tree id on path ap ("" = the remembered one). A generation in another tree runs on. */
  async open(id: string, ap: ActivePath = { nodeId: '' }) {
    this.id = id;
    this.view = null;
    this.error = '';
    this.loom.editor.editing = null;
    this.loom.gen.failure = null;
    this.collapsed.clear();
    this.loom.path.reset(ap);
    this.loading = true;
    try {
      await Promise.all([this.refresh(), this.loom.path.goTo(ap, undefined, false)]);
    } finally {
      if (this.id === id) this.loading = false;
    }
  }

  /** No tree open. */
  close() {
    this.id = '';
    this.view = null;
    this.loom.path.view = null;
  }

  /**
   * Reads the open tree again (every node: the map, bookmarks). A read that
   * a later one overtook is dropped, unless force: a change's own read
   * (togglePrune acts on what it shows, and the loom:changed reload the
   * change set off can start before it returns on a busy machine).
   */
  async refresh(force = false) {
    const id = this.id;
    const seq = ++this.seq;
    if (!id) return;
    try {
      const t = await api.loom.tree(id);
      if ((seq === this.seq || force) && id === this.id) this.view = t;
    } catch (e) {
      if (seq === this.seq && id === this.id) this.error = errorText(e);
    }
  }

  /** Coalesces bursts of loom:changed about the open tree into one reload. */
  requestReload() {
    clearTimeout(this.reloadTimer);
    this.reloadTimer = setTimeout(() => void this.reload(), 80);
  }

  /** The open tree and its path again, after a change. */
  async reload() {
    if (!this.id) return;
    await Promise.all([this.refresh(), this.loom.path.goTo(this.loom.path.wanted, undefined, false)]);
  }

  isCollapsed(pos: string): boolean {
    return this.collapsed.get(pos) ?? !!this.byId.get(pos)?.pruned;
  }

  toggleCollapsed(pos: string) {
    this.collapsed.set(pos, !this.isCollapsed(pos));
  }
}

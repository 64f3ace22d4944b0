// The library's loom trees (Loom.ListTrees), most recently changed first;
// archived ones on request. Creating and archiving a tree.

import { api } from '../api';
import { toasts } from '../toasts/toasts.svelte';
import type { LoomTreeInfo, LoomTreeSpec } from '../types';
import type { Loom } from './loom.svelte';

export class TreeList {
  trees = $state.raw<LoomTreeInfo[]>([]);
  loaded = $state(false);
  showArchived = $state(false);

  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private loom: Loom) {}

  /** Coalesces bursts of loom:changed into one reload. */
  request() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.load(), 120);
  }

  async load() {
    try {
      this.trees = await api.loom.listTrees(this.showArchived);
      this.loaded = true;
    } catch (e) {
      toasts.fail(e);
    }
  }

  async setShowArchived(on: boolean) {
    this.showArchived = on;
    await this.load();
  }

  /** Creates a tree and opens it (throws Go's error). */
  async create(spec: LoomTreeSpec) {
    const v = await api.loom.createTree(spec);
    this.loom.showNewTree = false;
    void this.load();
    await this.loom.tree.open(v.tree.id, v.activePath);
  }

  /** Archives tree id (or restores it); an archived open tree gives way to the newest. */
  async archive(id: string, archived: boolean) {
    try {
      await api.loom.archive(id, archived);
      this.loom.say(archived ? 'Archived: shown again with “Show archived”.' : 'Restored from the archive.');
      await this.load();
      if (archived && id === this.loom.tree.id && !this.showArchived) {
        this.loom.tree.close();
        if (this.trees.length) await this.loom.tree.open(this.trees[0].id);
      }
    } catch (e) {
      toasts.fail(e);
    }
  }
}

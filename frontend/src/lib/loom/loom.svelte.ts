// The loom view's state, one part per job: the trees of the library
// (list), the tree open (tree), walking its active path (path), marking
// nodes (marks), writing (editor), generating (gen), import and export
// (files); here, what ties them: the loom's events, its dialogs and the
// passing notice. Components read the parts and call their actions; only
// the parts call the api.

import { api } from '../api';
import type { DiffGranularity } from '../types';
import { Editor } from './editor.svelte';
import { Generations } from './generation.svelte';
import { TreeList } from './list.svelte';
import { NodeMarks } from './marks.svelte';
import { OpenTree } from './open.svelte';
import { PathWalk } from './path.svelte';
import { Transfer } from './transfer.svelte';

export type { Generation, GenerationFailure } from './generation.svelte';
export type { DuplicateImport } from './transfer.svelte';

export class Loom {
  readonly list = new TreeList(this);
  readonly tree = new OpenTree(this);
  readonly path = new PathWalk(this);
  readonly marks = new NodeMarks(this);
  readonly editor = new Editor(this);
  readonly gen = new Generations(this);
  readonly files = new Transfer(this);

  /** A passing message ("Cancelled: nothing was written."). */
  notice = $state('');
  /** The node whose edit history is open. */
  historyOf = $state<string | null>(null);
  showNewTree = $state(false);

  dialogOpen = $derived(
    this.showNewTree || this.historyOf !== null || this.files.imported !== null || this.files.duplicates.length > 0,
  );

  private noticeTimer: ReturnType<typeof setTimeout> | undefined;

  /** Subscribes to the loom events; returns the unsubscribe. */
  listen(): () => void {
    const offs = [
      api.on('loom:changed', (e) => {
        this.list.request();
        if (e?.treeId && e.treeId === this.tree.id) this.tree.requestReload();
      }),
      this.gen.listen(),
    ];
    return () => offs.forEach((off) => off());
  }

  /** Opens the most recent tree when none is open. */
  async start() {
    if (!this.list.loaded) await this.list.load();
    if (!this.tree.id && this.list.trees.length) await this.tree.open(this.list.trees[0].id);
  }

  say(msg: string) {
    this.notice = msg;
    clearTimeout(this.noticeTimer);
    this.noticeTimer = setTimeout(() => (this.notice = ''), 6000);
  }

  openHistory(nodeId = this.path.focusStep?.node.id) {
    if (nodeId) this.historyOf = nodeId;
  }

  /** Escape: closes the topmost loom dialog or the editor. Whether there was one. */
  closeTop(): boolean {
    if (this.files.duplicates.length) this.files.duplicates = [];
    else if (this.files.imported) this.files.imported = null;
    else if (this.historyOf) this.historyOf = null;
    else if (this.showNewTree) this.showNewTree = false;
    else if (this.editor.editing) this.editor.editing = null;
    else return false;
    return true;
  }

  /** The version family of node nodeId of tree treeId (the edit history). */
  versions(treeId: string, nodeId: string) {
    return api.loom.versions(treeId, nodeId);
  }

  /** What changed between two nodes of tree treeId. */
  diff(treeId: string, from: string, to: string, granularity: DiffGranularity) {
    return api.loom.diff(treeId, from, to, granularity);
  }
}

export const loom = new Loom();

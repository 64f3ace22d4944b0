// What the person marks on a node of the open tree: a bookmark, a pruned
// branch (hidden, not deleted), a node left out of what the model is sent.

import { api } from '../api';
import { toasts } from '../toasts/toasts.svelte';
import type { LoomNode } from '../types';
import type { Loom } from './loom.svelte';
import { nearestVisible, positionOf } from './tree';

export class NodeMarks {
  constructor(private loom: Loom) {}

  private focused(): LoomNode | undefined {
    return this.loom.path.focusStep?.node;
  }

  private async change(what: () => Promise<unknown>) {
    try {
      await what();
      await this.loom.tree.reload();
    } catch (e) {
      toasts.fail(e);
    }
  }

  toggleBookmark(node: LoomNode | undefined = this.focused()) {
    const id = this.loom.tree.id;
    if (!node || !id) return;
    void this.change(() => api.loom.setBookmark(id, node.id, !node.bookmarked, node.bookmarkLabel ?? ''));
  }

  /**
   * Prunes a node and so its branch (hidden, not deleted), or restores it.
   * A path that went through the node pruned moves to the nearest visible
   * node: a sibling (next, else previous), else the parent.
   */
  async togglePrune(node: LoomNode | undefined = this.focused()) {
    const tree = this.loom.tree;
    const id = tree.id;
    if (!node || !id) return;
    const pos = tree.mode === 'buffer' ? node.family : node.id;
    const pruning = !node.pruned;
    tree.collapsed.delete(pos);
    try {
      await api.loom.setPruned(id, node.id, pruning);
      if (pruning && id === tree.id) {
        await tree.refresh(true); // what the move below reads: the tree with the node pruned
        if (await this.leaveHidden(node)) return;
      }
      await tree.reload();
    } catch (e) {
      toasts.fail(e);
    }
  }

  /** After node was pruned: moves the path off it when it was on it. Whether it moved. */
  private async leaveHidden(node: LoomNode): Promise<boolean> {
    const path = this.loom.path;
    const byId = this.loom.tree.byId;
    const i = path.steps.findIndex((s) => s.node.id === node.id);
    const step = path.steps[i];
    if (!step) return false;
    // Buffer mode: a version pruned at a position still shown: another version of it.
    if (!byId.get(positionOf(step))?.hidden) {
      const v = step.versions.ids.find((vid) => vid !== node.id && !byId.get(vid)?.hidden);
      if (!v) return false;
      const versions = { ...(path.versionChoices() ?? {}), [step.node.family]: v };
      await path.goTo({ nodeId: positionOf(path.end ?? step), versions }, positionOf(step));
      return true;
    }
    const target = nearestVisible(path.steps, i, byId, path.lastChildren());
    if (!target) return false;
    await path.goTo({ nodeId: target, versions: path.versionChoices() }, target);
    return true;
  }

  toggleExcluded(node: LoomNode | undefined = this.focused()) {
    const id = this.loom.tree.id;
    if (!node || !id) return;
    void this.change(() => api.loom.setExcluded(id, node.id, !node.excluded));
  }
}

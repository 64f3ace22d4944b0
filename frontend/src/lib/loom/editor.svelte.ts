// Writing in the open tree: editing a step of the path (dialogue mode: a
// sibling branch; buffer mode: a version in place) and adding the person's
// text after the path's end.

import { api } from '../api';
import { toasts } from '../toasts/toasts.svelte';
import type { Loom } from './loom.svelte';
import { positionOf } from './tree';

/** The composer below the reading pane, while it is drawn (the loom's keys reach it). */
export interface ComposerControls {
  /** Generates (the text typed is added first). */
  generate(): void;
  focus(): void;
}

export class Editor {
  /** The position being edited. */
  editing = $state<string | null>(null);
  saving = $state(false);
  composer: ComposerControls | null = null;

  constructor(private loom: Loom) {}

  start(pos = this.loom.path.focus) {
    if (!this.loom.path.steps.some((s) => positionOf(s) === pos)) return;
    this.loom.path.focus = pos;
    this.editing = pos;
  }

  cancel() {
    this.editing = null;
  }

  /**
   * Saves the edit of the step in focus. Dialogue mode: a sibling branch
   * (the path moves to it); buffer mode: a version (the path keeps what
   * follows). Throws Go's error (an unchanged text).
   */
  async save(text: string) {
    const { path, tree } = this.loom;
    const step = path.steps.find((s) => positionOf(s) === this.editing);
    const end = path.end;
    if (!step || !end || !tree.id) return;
    this.saving = true;
    try {
      const n = await api.loom.edit(tree.id, step.node.id, text);
      this.editing = null;
      await tree.refresh();
      if (tree.mode === 'buffer') {
        const versions = { ...(path.versionChoices() ?? {}), [step.node.family]: n.id };
        await path.goTo({ nodeId: positionOf(end), versions }, positionOf(step));
      } else {
        await path.goTo({ nodeId: n.id }, n.id);
      }
    } finally {
      this.saving = false;
    }
  }

  /** Adds the person's text after the path's end; the path moves to it. */
  async addText(text: string): Promise<boolean> {
    const { path, tree } = this.loom;
    const end = path.end;
    if (!end || !tree.id || !text) return false;
    try {
      const n = await api.loom.addNode(tree.id, end.node.id, text);
      await Promise.all([tree.refresh(), path.goTo({ nodeId: n.id, versions: path.versionChoices() }, n.id)]);
      return true;
    } catch (e) {
      toasts.fail(e);
      return false;
    }
  }
}

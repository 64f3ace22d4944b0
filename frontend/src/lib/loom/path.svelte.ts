// Walking the open tree: the active path shown (Loom.ActivePathView) and
// the step in focus.
//
// The active path ends at a node; the reading pane shows it from the root.
// The focus is one step of it (the end unless the person moved up): the
// step whose siblings ←/→ walk, and what b, p, e and h act on. Generation
// and the composer continue the path's end.

import { activePath, api } from '../api';
import { errorText } from '../format';
import { toasts } from '../toasts/toasts.svelte';
import type { ActivePath, AuthorshipView, LoomPathStep, LoomPathView } from '../types';
import type { Loom } from './loom.svelte';
import { childOf, descend, positionOf, rememberChildren, siblingOf } from './tree';

export class PathWalk {
  view = $state.raw<LoomPathView | null>(null);
  authorship = $state<AuthorshipView>('raw');
  /** The position in focus (a step of the path). */
  focus = $state('');

  steps = $derived.by(() => (this.view?.treeId === this.loom.tree.id ? this.view.steps : []));
  focusIndex = $derived.by(() => {
    const i = this.steps.findIndex((s) => positionOf(s) === this.focus);
    return i < 0 ? this.steps.length - 1 : i;
  });
  focusStep = $derived<LoomPathStep | null>(this.steps[this.focusIndex] ?? null);
  end = $derived<LoomPathStep | null>(this.steps[this.steps.length - 1] ?? null);
  onPath = $derived(new Set(this.steps.map(positionOf)));

  /** Per position, the child the path last went on to (for walking back down). */
  private lastChild = new Map<string, string>();
  /** The active path last asked for (what a reload shows). */
  private wantPath: ActivePath = { nodeId: '' };
  /**
   * The focus the last navigation asked for, until a read of the path applies
   * it: a reload (loom:changed) that overtakes the navigation's own read
   * focuses it too, not the step focused before (which may still be on the
   * new path: the parent of a node just added or generated).
   */
  private wantFocus: string | undefined;
  private seq = 0;
  /** A sibling asked for whose path is not shown yet (quick repeated ←/→ keep counting from it). */
  private pendingSibling: { index: number; sib: string } | null = null;

  constructor(private loom: Loom) {}

  /** The active path last asked for: what a reload shows and a generation continues. */
  get wanted(): ActivePath {
    return this.wantPath;
  }

  /** A tree is opened on ap: nothing of the last one's path is kept. */
  reset(ap: ActivePath) {
    this.view = null;
    this.focus = '';
    this.wantFocus = undefined;
    this.lastChild.clear();
    this.pendingSibling = null;
    this.wantPath = activePath(ap);
  }

  /** The buffer-mode version chosen per family along the path, to keep when the path moves. */
  versionChoices(): Record<string, string> | undefined {
    const v = this.view?.activePath.versions ?? this.wantPath.versions;
    return v ? { ...v } : undefined;
  }

  /**
   * Shows active path ap; focus is the position to focus (default: the one
   * in focus when still on the path, else the end). remember: keep it as
   * the tree's active path (SetActivePath).
   */
  async goTo(ap: ActivePath, focus?: string, remember = true) {
    const treeId = this.loom.tree.id;
    if (!treeId) return;
    const seq = ++this.seq;
    this.wantPath = activePath(ap);
    if (focus !== undefined) this.wantFocus = focus;
    else if (remember) this.wantFocus = undefined;
    // A navigation (not a reload of what is asked for) ends a pending sibling walk.
    if (remember) this.pendingSibling = null;
    try {
      let view: LoomPathView;
      try {
        view = await api.loom.activePathView(treeId, ap, this.authorship);
      } catch (e) {
        // A version choice that no longer resolves: the family's newest.
        if (!ap.versions || !Object.keys(ap.versions).length) throw e;
        view = await api.loom.activePathView(treeId, { nodeId: ap.nodeId }, this.authorship);
      }
      if (seq !== this.seq || treeId !== this.loom.tree.id) return;
      this.pendingSibling = null;
      this.view = view;
      this.wantPath = view.activePath;
      this.loom.tree.error = '';
      rememberChildren(view.steps, this.lastChild);
      const positions = view.steps.map(positionOf);
      const want = this.wantFocus ?? this.focus;
      this.wantFocus = undefined;
      this.focus = positions.includes(want) ? want : (positions[positions.length - 1] ?? '');
      if (remember) api.loom.setActivePath(treeId, view.activePath).catch((e) => toasts.fail(e));
    } catch (e) {
      if (seq === this.seq && treeId === this.loom.tree.id) {
        this.pendingSibling = null;
        this.wantFocus = undefined;
        if (this.view) toasts.fail(e);
        else this.loom.tree.error = errorText(e);
      }
    }
  }

  /** Makes position id the path's end (a click in the map or the bookmarks). */
  selectNode(id: string) {
    this.loom.editor.editing = null;
    void this.goTo({ nodeId: id, versions: this.versionChoices() }, id);
  }

  setFocus(pos: string) {
    this.wantFocus = undefined;
    this.focus = pos;
  }

  /**
   * What the element drawing a step of the path carries, in either mode (a
   * Segment of the buffer, a Turn of the dialogue): a click focuses it, and
   * the hooks the tests find it by.
   */
  stepHooks(step: LoomPathStep) {
    const pos = positionOf(step);
    return {
      onclick: () => this.setFocus(pos),
      'data-testid': 'loom-step',
      'data-node-id': step.node.id,
      'data-position': pos,
      'data-focused': this.focus === pos,
    };
  }

  /** Walks the step at index i (default: the focus) to its sibling sib, and down the branch last visited there. */
  switchSibling(sib: string, i = this.focusIndex) {
    if (!this.steps[i]) return;
    this.loom.editor.editing = null;
    void this.goTo({ nodeId: descend(sib, this.loom.tree.byId, this.lastChild), versions: this.versionChoices() }, sib);
    this.pendingSibling = { index: i, sib };
  }

  /** The next (+1) or previous (-1) sibling of step i (default: the focus). */
  stepSibling(dir: 1 | -1, i = this.focusIndex) {
    let step = this.steps[i];
    if (!step) return;
    const p = this.pendingSibling;
    if (p && p.index === i) {
      const at = step.siblings.ids.indexOf(p.sib);
      if (at >= 0) step = { ...step, siblings: { ...step.siblings, index: at } };
    }
    const sib = siblingOf(step, dir, this.loom.tree.byId);
    if (sib) this.switchSibling(sib, i);
  }

  /** Buffer mode: shows version vid at step i's position, the rest of the path kept. */
  chooseVersion(vid: string, i = this.focusIndex) {
    const step = this.steps[i];
    const end = this.end;
    if (!step || !end) return;
    this.loom.editor.editing = null;
    const versions = { ...(this.versionChoices() ?? {}), [step.node.family]: vid };
    void this.goTo({ nodeId: positionOf(end), versions }, positionOf(step));
  }

  stepVersion(dir: 1 | -1, i = this.focusIndex) {
    const v = this.steps[i]?.versions;
    const id = v?.ids[v.index + dir];
    if (id) this.chooseVersion(id, i);
  }

  /** Focus the parent step. */
  up() {
    const i = this.focusIndex;
    if (i > 0) this.setFocus(positionOf(this.steps[i - 1]));
  }

  /** Focus the next step; at the end, continue the path to a child (the one last visited). */
  down() {
    const i = this.focusIndex;
    if (i < 0) return;
    if (i < this.steps.length - 1) {
      this.setFocus(positionOf(this.steps[i + 1]));
      return;
    }
    const child = childOf(positionOf(this.steps[i]), this.loom.tree.byId, this.lastChild);
    if (child) void this.goTo({ nodeId: child, versions: this.versionChoices() }, child);
  }

  async setAuthorship(view: AuthorshipView) {
    this.authorship = view;
    await this.goTo(this.wantPath, undefined, false);
  }

  /** Per position, the child the path last went on to. */
  lastChildren(): Map<string, string> {
    return this.lastChild;
  }
}

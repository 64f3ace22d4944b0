// The loom view's state: the trees, the open tree and its active path, the
// step in focus, a generation while it runs, and the loom's dialogs. The
// components read it and call its actions; the actions call the api.
//
// The active path ends at a node; the reading pane shows it from the root.
// The focus is one step of it (the end unless the person moved up): the
// step whose siblings ←/→ walk, and what b, p, e and h act on. Generation
// and the composer continue the path's end.

import { SvelteMap } from 'svelte/reactivity';
import { activePath, alreadyInLibrary, api } from '../api';
import { app } from '../state.svelte';
import { readDroppedFile } from '../import/files';
import { downloadText, exportFileName } from './files';
import { childOf, descend, nearestVisible, positionOf, rememberChildren, siblingOf } from './tree';
import type {
  ActivePath,
  AuthorshipView,
  LoomDelta,
  LoomGenerationError,
  LoomGenerationStart,
  LoomImportResult,
  LoomNode,
  LoomPathStep,
  LoomPathView,
  LoomTreeInfo,
  LoomTreeSpec,
  LoomTreeView,
} from '../types';

/** A generation while the model writes: the text of each continuation so far. */
export interface Generation {
  requestId: string;
  treeId: string;
  /** The node continued; "" until loom:start says. */
  parentId: string;
  n: number;
  model: string;
  texts: string[];
  /** loom:start arrived. */
  started: boolean;
}

/**
 * A loom tree file the library already holds: the person may import it as
 * a copy. A dropped or chosen file carries its content; a path (the window)
 * does not.
 */
export interface DuplicateImport {
  name: string;
  content?: string;
  path?: string;
  /** Go's error, naming the tree. */
  message: string;
}

/** Why the last generation wrote nothing. */
export interface GenerationFailure {
  requestId: string;
  message: string;
  /** No model is configured: the way out is the Settings dialog. */
  noModel: boolean;
}

const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e));
const newRequestId = () => `gen-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

class LoomState {
  trees = $state.raw<LoomTreeInfo[]>([]);
  treesLoaded = $state(false);
  showArchived = $state(false);

  treeId = $state('');
  tree = $state.raw<LoomTreeView | null>(null);
  path = $state.raw<LoomPathView | null>(null);
  loading = $state(false);
  /** Why the open tree could not be shown. */
  error = $state('');
  authorship = $state<AuthorshipView>('raw');
  /** The position in focus (a step of the path). */
  focus = $state('');
  /** The position being edited. */
  editing = $state<string | null>(null);
  saving = $state(false);

  generation = $state<Generation | null>(null);
  failure = $state.raw<GenerationFailure | null>(null);
  /** A passing message ("Cancelled: nothing was written."). */
  notice = $state('');

  /** Collapsed or expanded by the person; otherwise pruned positions start collapsed. */
  collapsed = new SvelteMap<string, boolean>();
  /** The node whose edit history is open. */
  historyOf = $state<string | null>(null);
  showNewTree = $state(false);
  /** An import with warnings or tampering to read. */
  imported = $state.raw<LoomImportResult | null>(null);
  importing = $state(false);
  /** Files whose tree the library already holds: offered as copies. */
  duplicates = $state.raw<DuplicateImport[]>([]);

  info = $derived(this.tree?.tree ?? null);
  mode = $derived(this.tree?.tree.mode ?? 'dialogue');
  byId = $derived(new Map((this.tree?.nodes ?? []).map((n) => [n.id, n])));
  steps = $derived(this.path?.treeId === this.treeId ? this.path.steps : []);
  focusIndex = $derived.by(() => {
    const i = this.steps.findIndex((s) => positionOf(s) === this.focus);
    return i < 0 ? this.steps.length - 1 : i;
  });
  focusStep = $derived<LoomPathStep | null>(this.steps[this.focusIndex] ?? null);
  end = $derived<LoomPathStep | null>(this.steps[this.steps.length - 1] ?? null);
  onPath = $derived(new Set(this.steps.map(positionOf)));
  bookmarks = $derived((this.tree?.nodes ?? []).filter((n) => n.bookmarked));
  dialogOpen = $derived(this.showNewTree || this.historyOf !== null || this.imported !== null || this.duplicates.length > 0);

  /** Per position, the child the path last went on to (for walking back down). */
  private lastChild = new Map<string, string>();
  /** The active path last asked for (what a reload shows). */
  private wantPath: ActivePath = { nodeId: '' };
  private pathSeq = 0;
  private treeSeq = 0;
  /** A sibling asked for whose path is not shown yet (quick repeated ←/→ keep counting from it). */
  private pendingSibling: { index: number; sib: string } | null = null;
  private listTimer: ReturnType<typeof setTimeout> | undefined;
  private reloadTimer: ReturnType<typeof setTimeout> | undefined;
  private noticeTimer: ReturnType<typeof setTimeout> | undefined;

  /** Subscribes to the loom events; returns the unsubscribe. */
  listen(): () => void {
    const offs = [
      api.on('loom:changed', (e) => {
        this.requestTrees();
        if (e?.treeId && e.treeId === this.treeId) this.requestReload();
      }),
      api.on('loom:start', (e) => this.onStart(e)),
      api.on('loom:delta', (e) => this.onDelta(e)),
      api.on('loom:error', (e) => this.onError(e)),
    ];
    return () => offs.forEach((off) => off());
  }

  say(msg: string) {
    this.notice = msg;
    clearTimeout(this.noticeTimer);
    this.noticeTimer = setTimeout(() => (this.notice = ''), 6000);
  }

  // ---- trees ----

  requestTrees() {
    clearTimeout(this.listTimer);
    this.listTimer = setTimeout(() => void this.loadTrees(), 120);
  }

  async loadTrees() {
    try {
      this.trees = await api.loom.listTrees(this.showArchived);
      this.treesLoaded = true;
    } catch (e) {
      app.fail(e);
    }
  }

  /** Opens the most recent tree when none is open. */
  async start() {
    if (!this.treesLoaded) await this.loadTrees();
    if (!this.treeId && this.trees.length) await this.openTree(this.trees[0].id);
  }

  /** Opens tree id on path ap ("" = the remembered one). A generation in another tree runs on. */
  async openTree(id: string, ap: ActivePath = { nodeId: '' }) {
    this.treeId = id;
    this.tree = null;
    this.path = null;
    this.error = '';
    this.focus = '';
    this.editing = null;
    this.failure = null;
    this.collapsed.clear();
    this.lastChild.clear();
    this.pendingSibling = null;
    this.wantPath = activePath(ap);
    this.loading = true;
    try {
      await Promise.all([this.refreshTree(), this.goTo(ap, undefined, false)]);
    } finally {
      if (this.treeId === id) this.loading = false;
    }
  }

  /** Reads the open tree again (every node: the map, bookmarks). */
  async refreshTree() {
    const id = this.treeId;
    const seq = ++this.treeSeq;
    if (!id) return;
    try {
      const t = await api.loom.tree(id);
      if (seq === this.treeSeq && id === this.treeId) this.tree = t;
    } catch (e) {
      if (seq === this.treeSeq && id === this.treeId) this.error = errorText(e);
    }
  }

  private requestReload() {
    clearTimeout(this.reloadTimer);
    this.reloadTimer = setTimeout(() => void this.reload(), 80);
  }

  /** The open tree and its path again, after a change. */
  async reload() {
    if (!this.treeId) return;
    await Promise.all([this.refreshTree(), this.goTo(this.wantPath, undefined, false)]);
  }

  async createTree(spec: LoomTreeSpec) {
    const v = await api.loom.createTree(spec);
    this.showNewTree = false;
    void this.loadTrees();
    await this.openTree(v.tree.id, v.activePath);
  }

  async archive(id: string, archived: boolean) {
    try {
      await api.loom.archive(id, archived);
      this.say(archived ? 'Archived: shown again with “Show archived”.' : 'Restored from the archive.');
      await this.loadTrees();
      if (archived && id === this.treeId && !this.showArchived) {
        this.treeId = '';
        this.tree = null;
        this.path = null;
        if (this.trees.length) await this.openTree(this.trees[0].id);
      }
    } catch (e) {
      app.fail(e);
    }
  }

  async setShowArchived(on: boolean) {
    this.showArchived = on;
    await this.loadTrees();
  }

  // ---- the path ----

  private versionChoices(): Record<string, string> | undefined {
    const v = this.path?.activePath.versions ?? this.wantPath.versions;
    return v ? { ...v } : undefined;
  }

  /**
   * Shows active path ap; focus is the position to focus (default: the one
   * in focus when still on the path, else the end). remember: keep it as
   * the tree's active path (SetActivePath).
   */
  async goTo(ap: ActivePath, focus?: string, remember = true) {
    const treeId = this.treeId;
    if (!treeId) return;
    const seq = ++this.pathSeq;
    this.wantPath = activePath(ap);
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
      if (seq !== this.pathSeq || treeId !== this.treeId) return;
      this.pendingSibling = null;
      this.path = view;
      this.wantPath = view.activePath;
      this.error = '';
      rememberChildren(view.steps, this.lastChild);
      const positions = view.steps.map(positionOf);
      const want = focus ?? this.focus;
      this.focus = positions.includes(want) ? want : (positions[positions.length - 1] ?? '');
      if (remember) api.loom.setActivePath(treeId, view.activePath).catch((e) => app.fail(e));
    } catch (e) {
      if (seq === this.pathSeq && treeId === this.treeId) {
        this.pendingSibling = null;
        if (this.path) app.fail(e);
        else this.error = errorText(e);
      }
    }
  }

  /** Makes position id the path's end (a click in the map or the bookmarks). */
  selectNode(id: string) {
    this.editing = null;
    void this.goTo({ nodeId: id, versions: this.versionChoices() }, id);
  }

  setFocus(pos: string) {
    this.focus = pos;
  }

  /** Walks the step at index i (default: the focus) to its sibling sib, and down the branch last visited there. */
  switchSibling(sib: string, i = this.focusIndex) {
    if (!this.steps[i]) return;
    this.editing = null;
    void this.goTo({ nodeId: descend(sib, this.byId, this.lastChild), versions: this.versionChoices() }, sib);
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
    const sib = siblingOf(step, dir, this.byId);
    if (sib) this.switchSibling(sib, i);
  }

  /** Buffer mode: shows version vid at step i's position, the rest of the path kept. */
  chooseVersion(vid: string, i = this.focusIndex) {
    const step = this.steps[i];
    const end = this.end;
    if (!step || !end) return;
    this.editing = null;
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
    if (i > 0) this.focus = positionOf(this.steps[i - 1]);
  }

  /** Focus the next step; at the end, continue the path to a child (the one last visited). */
  down() {
    const i = this.focusIndex;
    if (i < 0) return;
    if (i < this.steps.length - 1) {
      this.focus = positionOf(this.steps[i + 1]);
      return;
    }
    const child = childOf(positionOf(this.steps[i]), this.byId, this.lastChild);
    if (child) void this.goTo({ nodeId: child, versions: this.versionChoices() }, child);
  }

  async setAuthorship(view: AuthorshipView) {
    this.authorship = view;
    await this.goTo(this.wantPath, undefined, false);
  }

  // ---- node state ----

  private async changeState(what: () => Promise<unknown>) {
    try {
      await what();
      await this.reload();
    } catch (e) {
      app.fail(e);
    }
  }

  toggleBookmark(node: LoomNode | undefined = this.focusStep?.node) {
    if (!node || !this.treeId) return;
    const id = this.treeId;
    void this.changeState(() => api.loom.setBookmark(id, node.id, !node.bookmarked, node.bookmarkLabel ?? ''));
  }

  /**
   * Prunes a node and so its branch (hidden, not deleted), or restores it.
   * A path that went through the node pruned moves to the nearest visible
   * node: a sibling (next, else previous), else the parent.
   */
  async togglePrune(node: LoomNode | undefined = this.focusStep?.node) {
    if (!node || !this.treeId) return;
    const id = this.treeId;
    const pos = this.mode === 'buffer' ? node.family : node.id;
    const pruning = !node.pruned;
    this.collapsed.delete(pos);
    try {
      await api.loom.setPruned(id, node.id, pruning);
      if (pruning && id === this.treeId) {
        await this.refreshTree();
        if (await this.leaveHidden(node)) return;
      }
      await this.reload();
    } catch (e) {
      app.fail(e);
    }
  }

  /** After node was pruned: moves the path off it when it was on it. Whether it moved. */
  private async leaveHidden(node: LoomNode): Promise<boolean> {
    const i = this.steps.findIndex((s) => s.node.id === node.id);
    const step = this.steps[i];
    if (!step) return false;
    // Buffer mode: a version pruned at a position still shown: another version of it.
    if (!this.byId.get(positionOf(step))?.hidden) {
      const v = step.versions.ids.find((vid) => vid !== node.id && !this.byId.get(vid)?.hidden);
      if (!v) return false;
      const versions = { ...(this.versionChoices() ?? {}), [step.node.family]: v };
      await this.goTo({ nodeId: positionOf(this.end ?? step), versions }, positionOf(step));
      return true;
    }
    const target = nearestVisible(this.steps, i, this.byId, this.lastChild);
    if (!target) return false;
    await this.goTo({ nodeId: target, versions: this.versionChoices() }, target);
    return true;
  }

  toggleExcluded(node: LoomNode | undefined = this.focusStep?.node) {
    if (!node || !this.treeId) return;
    const id = this.treeId;
    void this.changeState(() => api.loom.setExcluded(id, node.id, !node.excluded));
  }

  isCollapsed(pos: string): boolean {
    return this.collapsed.get(pos) ?? !!this.byId.get(pos)?.pruned;
  }

  toggleCollapsed(pos: string) {
    this.collapsed.set(pos, !this.isCollapsed(pos));
  }

  // ---- writing ----

  startEdit(pos = this.focus) {
    if (!this.steps.some((s) => positionOf(s) === pos)) return;
    this.focus = pos;
    this.editing = pos;
  }

  cancelEdit() {
    this.editing = null;
  }

  /**
   * Saves the edit of the step in focus. Dialogue mode: a sibling branch
   * (the path moves to it); buffer mode: a version (the path keeps what
   * follows). Throws Go's error (an unchanged text).
   */
  async saveEdit(text: string) {
    const step = this.steps.find((s) => positionOf(s) === this.editing);
    const end = this.end;
    if (!step || !end || !this.treeId) return;
    this.saving = true;
    try {
      const n = await api.loom.edit(this.treeId, step.node.id, text);
      this.editing = null;
      await this.refreshTree();
      if (this.mode === 'buffer') {
        const versions = { ...(this.versionChoices() ?? {}), [step.node.family]: n.id };
        await this.goTo({ nodeId: positionOf(end), versions }, positionOf(step));
      } else {
        await this.goTo({ nodeId: n.id }, n.id);
      }
    } finally {
      this.saving = false;
    }
  }

  /** Adds the person's text after the path's end; the path moves to it. */
  async addText(text: string): Promise<boolean> {
    const end = this.end;
    if (!end || !this.treeId || !text) return false;
    try {
      const n = await api.loom.addNode(this.treeId, end.node.id, text);
      await Promise.all([this.refreshTree(), this.goTo({ nodeId: n.id, versions: this.versionChoices() }, n.id)]);
      return true;
    } catch (e) {
      app.fail(e);
      return false;
    }
  }

  /**
   * Asks the model for the settings' N continuations of the path's end
   * (text first added as the person's, when given). The continuations
   * stream into live cards; when done the path moves to the first.
   */
  async generate(n: number, text = '') {
    if (this.generation || !this.treeId) return;
    if (text && !(await this.addText(text))) return;
    const end = this.end;
    if (!end) return;
    const treeId = this.treeId;
    const requestId = newRequestId();
    this.failure = null;
    this.notice = '';
    this.generation = { requestId, treeId, parentId: end.node.id, n, model: '', texts: Array(n).fill(''), started: false };
    try {
      const res = await api.loom.generate({ treeId, activePath: this.wantPath, n: 0, requestId });
      const first = res.nodes[0];
      if (first && this.treeId === treeId) {
        await Promise.all([this.refreshTree(), this.goTo({ nodeId: first.id, versions: this.versionChoices() }, first.id)]);
      }
    } catch (e) {
      this.fail(requestId, errorText(e), /cancel/i.test(errorText(e)));
    } finally {
      if (this.generation?.requestId === requestId) this.generation = null;
    }
  }

  async cancelGeneration() {
    const g = this.generation;
    if (!g) return;
    try {
      await api.loom.cancelGeneration(g.requestId);
    } catch (e) {
      app.fail(e);
    }
  }

  private fail(requestId: string, message: string, cancelled: boolean) {
    if (cancelled) {
      this.failure = null;
      this.say('Generation cancelled: nothing was written.');
      return;
    }
    if (this.failure?.requestId === requestId) return;
    this.failure = { requestId, message, noModel: /no model configured/i.test(message) };
  }

  private onStart(e: LoomGenerationStart) {
    const g = this.generation;
    if (!g || e.requestId !== g.requestId) return;
    g.parentId = e.parentId;
    g.model = e.model;
    g.started = true;
    if (e.n !== g.texts.length) g.texts = Array.from({ length: e.n }, (_, i) => g.texts[i] ?? '');
    g.n = e.n;
  }

  private onDelta(d: LoomDelta) {
    const g = this.generation;
    if (!g || d.requestId !== g.requestId || d.index < 0) return;
    while (g.texts.length <= d.index) g.texts.push('');
    g.texts[d.index] += d.text;
  }

  private onError(e: LoomGenerationError) {
    if (!this.generation || e.requestId !== this.generation.requestId) return;
    this.fail(e.requestId, e.error, e.cancelled);
    this.generation = null;
  }

  // ---- files ----

  /** Serve mode: a download; the window: a native save dialog. */
  async exportTree() {
    const id = this.treeId;
    const title = this.info?.title ?? '';
    if (!id) return;
    try {
      if (api.mode === 'window') {
        const path = await api.loom.exportToFile(id);
        if (path) this.say(`Exported to ${path}`);
      } else {
        downloadText(exportFileName(title), await api.loom.export(id));
        this.say(`Exported “${title}” as ${exportFileName(title)}`);
      }
    } catch (e) {
      app.fail(e);
    }
  }

  /** Imports loom tree files dropped on the window (paths) and opens the last. */
  async importPaths(paths: string[]) {
    if (!paths.length || this.importing) return;
    this.importing = true;
    try {
      const results: LoomImportResult[] = [];
      const dups: DuplicateImport[] = [];
      // One by one, so a tree already held is known by its file.
      for (const path of paths) {
        try {
          results.push(...(await api.loom.importPaths([path])));
        } catch (e) {
          const name = path.split(/[\\/]/).pop() ?? path;
          if (alreadyInLibrary(e)) dups.push({ name, path, message: errorText(e) });
          else app.fail(e);
        }
      }
      await this.opened(results.at(-1) ?? null);
      this.duplicates = dups;
    } finally {
      this.importing = false;
    }
  }

  /** Imports loom tree files (Rhizome exports or socketteer/loom trees) and opens the last. */
  async importFiles(files: File[]) {
    if (!files.length || this.importing) return;
    this.importing = true;
    try {
      let last: LoomImportResult | null = null;
      const dups: DuplicateImport[] = [];
      for (const f of files) {
        let read: { name: string; content: string } | null = null;
        try {
          read = await readDroppedFile(f);
          last = await api.loom.import(read.name, read.content);
        } catch (e) {
          if (read && alreadyInLibrary(e)) dups.push({ name: read.name, content: read.content, message: errorText(e) });
          else app.fail(e);
        }
      }
      await this.opened(last);
      this.duplicates = dups;
    } finally {
      this.importing = false;
    }
  }

  /** Imports the files offered as copies (the trees the library already holds) and opens the last. */
  async importCopies() {
    const dups = this.duplicates;
    this.duplicates = [];
    if (!dups.length) return;
    this.importing = true;
    try {
      let last: LoomImportResult | null = null;
      for (const d of dups) {
        try {
          if (d.content !== undefined) last = await api.loom.importCopy(d.name, d.content);
          else if (d.path) last = (await api.loom.importCopyPaths([d.path])).at(-1) ?? last;
        } catch (e) {
          app.fail(e);
        }
      }
      await this.opened(last);
    } finally {
      this.importing = false;
    }
  }

  /** Opens what an import made; shows its warnings, or says what it was. */
  private async opened(r: LoomImportResult | null) {
    if (!r) return;
    if (r.warnings.length || r.tampered.length) this.imported = r;
    await this.loadTrees();
    await this.openTree(r.tree.id, r.activePath);
    if (!this.imported) {
      const copy = r.tree.copiedFrom ? ' as a copy' : '';
      this.say(`Imported “${r.tree.title}”${copy} (${r.format} format, ${r.tree.positions} nodes).`);
    }
  }

  // ---- dialogs ----

  openHistory(nodeId = this.focusStep?.node.id) {
    if (nodeId) this.historyOf = nodeId;
  }

  /** Escape: closes the topmost loom dialog or the editor. Whether there was one. */
  closeTop(): boolean {
    if (this.duplicates.length) this.duplicates = [];
    else if (this.imported) this.imported = null;
    else if (this.historyOf) this.historyOf = null;
    else if (this.showNewTree) this.showNewTree = false;
    else if (this.editing) this.editing = null;
    else return false;
    return true;
  }
}

export const loom = new LoomState();

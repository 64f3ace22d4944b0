// The reasoning view's state: the library's reasoning graphs, the graph
// open and the step of its history shown, the node in focus and the one
// whose details are open, the spans opened, the paste box and the notice.
// Running MemoBrain on a session is run.svelte.ts. Components read this
// and call its actions; only it (and run.svelte.ts) call the api.

import { api } from '../api';
import { errorText } from '../format';
import { imports } from '../import/imports.svelte';
import { filesOfDrop, type PickedFile } from '../import/files';
import type { Intake } from '../import/intake';
import { toasts } from '../toasts/toasts.svelte';
import type {
  ReasoningAt,
  ReasoningDiff,
  ReasoningGraphInfo,
  ReasoningGraphView,
  ReasoningNodeView,
  ReasoningState,
  ReasoningTurn,
} from '../types';
import { downloadText } from '../loom/files';
import { layoutScene, type Scene } from './layout';

/** How long the slider waits for the next move before asking for a step (ms). */
const STEP_DEBOUNCE = 40;

/** Which of the two replies the pasted text is: a memory patch, or flush-and-fold operations. */
export function replyKind(text: string): 'patch' | 'flushAndFold' {
  return /"(flush_ops|fold_ops)"\s*:/.test(text) ? 'flushAndFold' : 'patch';
}

/** The file name a graph's snapshot is downloaded under. */
export function snapshotFileName(title: string): string {
  const words = title.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  let name = '';
  for (const w of words) {
    if (name.length + w.length + 1 > 60) break;
    name = name ? `${name}-${w}` : w;
  }
  return `${name || 'reasoning-graph'}.json`;
}

class Reasoning {
  graphs = $state.raw<ReasoningGraphInfo[]>([]);
  loaded = $state(false);

  /** The graph open, as it is now. */
  view = $state.raw<ReasoningGraphView | null>(null);
  loading = $state(false);
  /** The step of the history shown (view.step: now). */
  step = $state(0);
  /** The graph at `step` when it is not now. */
  at = $state.raw<ReasoningAt | null>(null);
  /** What the operation that led to `step` changed (null at step 0). */
  diff = $state.raw<ReasoningDiff | null>(null);
  stepLoading = $state(false);

  /** The node the keyboard is on; the node whose details are open. */
  cursor = $state<number | null>(null);
  selected = $state<number | null>(null);
  /** The selected node's turns. */
  turns = $state.raw<ReasoningTurn[]>([]);
  turnsError = $state('');
  /** Summaries whose span is open. */
  expanded = $state.raw<Set<number>>(new Set());

  /** The paste box: its text, the error of the last apply. */
  applyOpen = $state(false);
  applyText = $state('');
  applyError = $state('');
  applying = $state(false);

  /** A passing message ("Applied: …"). */
  notice = $state('');

  /** The canvas's camera and focus, while it is drawn. */
  controls = $state.raw<{
    zoomIn(): void;
    zoomOut(): void;
    fit(): void;
    reveal(id: number): void;
    revealSpan(id: number): void;
    focus(): void;
  } | null>(null);

  nodeById = $derived(new Map((this.view?.nodes ?? []).map((n) => [n.id, n])));

  /** The nodes that exist at the step shown, with their state then. */
  states = $derived.by(() => {
    const m = new Map<number, ReasoningState>();
    if (this.at) for (const n of this.at.nodes) m.set(n.id, n.state);
    else for (const n of this.view?.nodes ?? []) m.set(n.id, n.state);
    return m;
  });

  /** The graph at the step shown, laid out. */
  scene: Scene = $derived(
    layoutScene({
      nodes: this.nodeById,
      states: this.states,
      edges: this.at?.edges ?? this.view?.edges ?? [],
      spans: this.at?.spans ?? this.view?.spans ?? [],
      expanded: this.expanded,
    }),
  );

  private stepSeq = 0;
  private stepTimer: ReturnType<typeof setTimeout> | undefined;
  private listTimer: ReturnType<typeof setTimeout> | undefined;
  private noticeTimer: ReturnType<typeof setTimeout> | undefined;
  private turnsSeq = 0;
  /** Our own change: its reasoning:changed needs no reload. */
  private ownChange = '';

  get id() {
    return this.view?.info.id ?? '';
  }
  get atEnd() {
    return !this.view || this.step === this.view.step;
  }

  /** Subscribes to reasoning:changed; returns the unsubscribe. */
  listen(): () => void {
    return api.on('reasoning:changed', (e) => {
      this.requestList();
      const id = e?.graphId ?? '';
      if (id && id === this.id) {
        if (this.ownChange === id) this.ownChange = '';
        else void this.reload();
      }
    });
  }

  requestList() {
    clearTimeout(this.listTimer);
    this.listTimer = setTimeout(() => void this.loadList(), 120);
  }

  async loadList() {
    try {
      this.graphs = await api.reasoning.list();
      this.loaded = true;
    } catch (e) {
      toasts.fail(e);
    }
  }

  /** Shown: opens the most recent graph when none is open. */
  async start() {
    if (!this.loaded) await this.loadList();
    if (!this.view && this.graphs.length) await this.open(this.graphs[0].id);
  }

  say(msg: string) {
    this.notice = msg;
    clearTimeout(this.noticeTimer);
    this.noticeTimer = setTimeout(() => (this.notice = ''), 6000);
  }

  /** Opens graph id at its last step. */
  async open(id: string) {
    this.loading = true;
    try {
      const v = await api.reasoning.open(id);
      this.show(v);
      this.cursor = v.nodes.find((n) => n.kind === 'task')?.id ?? v.nodes[0]?.id ?? null;
      this.selected = null;
      this.expanded = new Set();
      this.applyError = '';
    } catch (e) {
      toasts.fail(e);
    } finally {
      this.loading = false;
    }
  }

  /** Reads the open graph again (another window changed it), at its last step. */
  async reload() {
    if (!this.id) return;
    try {
      this.show(await api.reasoning.open(this.id));
    } catch (e) {
      toasts.fail(e);
      this.close();
    }
  }

  /** Shows view v at its last step. */
  private show(v: ReasoningGraphView) {
    this.stepSeq++;
    this.view = v;
    this.step = v.step;
    this.at = null;
    this.diff = null;
    if (this.selected !== null && !v.nodes.some((n) => n.id === this.selected)) this.selected = null;
    void this.loadDiff(v.step);
  }

  close() {
    this.view = null;
    this.at = null;
    this.diff = null;
    this.selected = null;
    this.cursor = null;
  }

  /** The diff of the operation that led to step k (the last step: the view has none). */
  private async loadDiff(k: number) {
    const mine = this.stepSeq;
    if (k === 0 || !this.id) return;
    try {
      const d = await api.reasoning.stepDiff(this.id, k - 1);
      if (mine === this.stepSeq) this.diff = d;
    } catch (e) {
      toasts.fail(e);
    }
  }

  /** Moves the history to step k (clamped); asks Go for it once the slider rests. */
  setStep(k: number) {
    if (!this.view) return;
    k = Math.max(0, Math.min(this.view.step, Math.round(k)));
    if (k === this.step && !this.stepLoading) return;
    this.step = k;
    const mine = ++this.stepSeq;
    clearTimeout(this.stepTimer);
    this.stepLoading = true;
    this.stepTimer = setTimeout(async () => {
      if (!this.view) return;
      try {
        if (k === this.view.step) {
          this.at = null;
          this.diff = null;
          this.stepLoading = false;
          await this.loadDiff(k);
          return;
        }
        const at = await api.reasoning.at(this.id, k);
        if (mine !== this.stepSeq) return;
        this.at = at;
        this.diff = at.diff ?? null;
      } catch (e) {
        if (mine === this.stepSeq) toasts.fail(e);
      } finally {
        if (mine === this.stepSeq) this.stepLoading = false;
      }
    }, STEP_DEBOUNCE);
  }

  stepBy(d: number) {
    this.setStep(this.step + d);
  }

  /** The node in focus at the step shown (the cursor, if it is drawn). */
  focusNode(id: number | null) {
    this.cursor = id;
  }

  /** Opens node id's details: its notes, turns and links. */
  async select(id: number | null) {
    this.selected = id;
    if (id === null) return;
    this.cursor = id;
    const mine = ++this.turnsSeq;
    this.turns = [];
    this.turnsError = '';
    try {
      const turns = await api.reasoning.turns(this.id, id);
      if (mine === this.turnsSeq) this.turns = turns;
    } catch (e) {
      if (mine === this.turnsSeq) this.turnsError = errorText(e);
    }
  }

  /** Opens or closes summary id's span. */
  toggleSpan(id: number) {
    const next = new Set(this.expanded);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    this.expanded = next;
    // Once drawn, the span opened is brought into view.
    if (next.has(id)) requestAnimationFrame(() => this.controls?.revealSpan(id));
  }

  node(id: number | null): ReasoningNodeView | undefined {
    return id === null ? undefined : this.nodeById.get(id);
  }

  /** Applies the pasted patch or flush-and-fold reply; the error stays in the box. */
  async apply(text = this.applyText) {
    if (!this.id || this.applying || !text.trim()) return;
    this.applying = true;
    this.applyError = '';
    const kind = replyKind(text);
    try {
      this.ownChange = this.id;
      const v = kind === 'patch' ? await api.reasoning.applyPatch(this.id, text) : await api.reasoning.applyFlushAndFold(this.id, text);
      const added = v.step - (this.view?.step ?? 0);
      this.show(v);
      this.applyText = '';
      // Done with: the box closes, the canvas gets its height back.
      this.applyOpen = false;
      this.say(`Applied ${kind === 'patch' ? 'the patch' : 'the flush and fold'}: ${added} new step${added === 1 ? '' : 's'}.`);
      this.requestList();
    } catch (e) {
      this.ownChange = '';
      this.applyError = errorText(e);
    } finally {
      this.applying = false;
    }
  }

  /** Reads a chosen file into the paste box and applies it. */
  async applyFile(file: File) {
    const text = await file.text();
    this.applyText = text;
    await this.apply(text);
  }

  /** Gives the open graph its conversation (MemoBrain messages, a chosen file). */
  async attachConversation(file: File) {
    if (!this.id) return;
    try {
      const info = await api.reasoning.attachConversation(this.id, await file.text());
      this.say(`The conversation is attached: ${info.messages} messages.`);
      await this.reload();
      if (this.selected !== null) await this.select(this.selected);
    } catch (e) {
      toasts.fail(e);
    }
  }

  /** Serve mode: a download; the window: a native save dialog. */
  async exportGraph() {
    const v = this.view;
    if (!v) return;
    try {
      if (api.mode === 'window') {
        const path = await api.reasoning.exportToFile(v.info.id);
        if (path) this.say(`Exported to ${path}`);
      } else {
        const name = snapshotFileName(v.info.title);
        downloadText(name, await api.reasoning.export(v.info.id));
        this.say(`Exported “${v.info.title}” as ${name}`);
      }
    } catch (e) {
      toasts.fail(e);
    }
  }

  async remove(id: string) {
    try {
      await api.reasoning.delete(id);
      if (id === this.id) this.close();
      await this.loadList();
      if (!this.view && this.graphs.length) await this.open(this.graphs[0].id);
    } catch (e) {
      toasts.fail(e);
    }
  }

  /** Imports files through the window's import (the report panel shows them) and opens the first graph made. */
  async importWith(work: () => Promise<void>) {
    await work();
    const made = (imports.report?.files ?? []).find((f) => f.reasoning?.graphId)?.reasoning?.graphId;
    await this.loadList();
    if (made) await this.open(made);
  }

  /** Escape: closes the paste box or the details; whether there was one. */
  closeTop(): boolean {
    if (this.applyOpen) {
      this.applyOpen = false;
      return true;
    }
    return false;
  }
  clearSelection(): boolean {
    if (this.selected === null) return false;
    this.selected = null;
    return true;
  }
}

export const reasoning = new Reasoning();

/** MemoBrain files: what the reasoning view takes (the import detects them by content). */
export const reasoningIntake: Intake = {
  overlay: {
    title: 'Drop to import',
    hint: 'MemoBrain snapshots (.json), with their conversation if you have it',
    testid: 'reasoning-drop-overlay',
  },
  picker: { accept: '.json', testid: 'reasoning-import-input' },
  busy: () => imports.running,
  readDrop: filesOfDrop,
  take: (files: Promise<PickedFile[]>) => void reasoning.importWith(() => imports.importPicked(files)),
  takePaths: (paths: string[]) => {
    if (paths.length && !imports.running) void reasoning.importWith(() => imports.importPaths(paths));
  },
};

// The knowledge graph of the library's scope: its nodes and edges
// (Graph.Graph), the types hidden in the legend, the layout, the node
// selected and the keyboard's cursor. selectNode is how any view opens a
// node (search, the timeline, later links and mentions): it brings the node's
// session into the graph when the node is outside the scope.

import { SvelteSet } from 'svelte/reactivity';
import { api } from '../api';
import { imports } from '../import/imports.svelte';
import { library } from '../library/library.svelte';
import { timeline } from '../timeline/timeline.svelte';
import { toasts } from '../toasts/toasts.svelte';
import type { GraphData } from '../types';
import { views } from '../views/views.svelte';
import { neighbourhood } from './focus';

export type LayoutMode = 'lanes' | 'force';

/** Camera commands the graph view carries out (set by GraphView while it is mounted). */
export interface GraphControls {
  zoomIn(): void;
  zoomOut(): void;
  fit(): void;
  center(id: string): void;
  /** Page coordinates of a node on the canvas (test hook), null when not drawn. */
  screenPosition(id: string): { x: number; y: number } | null;
  /** Lays the graph out again in the current mode. */
  relayout(): void;
  /** Main-thread milliseconds of the last sigma renders. */
  renderTimes(): number[];
}

class KnowledgeGraph {
  data = $state.raw<GraphData>({ nodes: [], edges: [], analysing: 0 });
  loading = $state(false);
  hiddenNodeTypes = new SvelteSet<string>();
  hiddenEdgeTypes = new SvelteSet<string>();
  layout = $state<LayoutMode>('lanes');

  selected = $state<string | null>(null);
  /** The node the keyboard is on in the graph (arrow keys move it, Enter opens it). */
  cursor = $state<string | null>(null);
  /** A bridge drawn over the graph (source, bridges, target node ids), the rest dimmed; null when none. */
  path = $state.raw<string[] | null>(null);

  controls: GraphControls | null = null;
  /** A node to center once the graph holding it is drawn. */
  pendingCenter: string | null = null;

  /** Focus mode: only this node and its neighbourhood to depth edges are drawn; null: the whole graph. */
  focus = $state<{ id: string; depth: number } | null>(null);
  /** The ids focus mode draws; null when it is off. */
  focusSet = $derived(
    this.focus ? neighbourhood(this.data.edges, this.focus.id, this.focus.depth, this.hiddenEdgeTypes) : null,
  );

  /** Graph nodes by id. */
  nodeById = $derived(new Map(this.data.nodes.map((n) => [n.id, n])));

  private seq = 0;

  async load() {
    const seq = ++this.seq;
    this.loading = true;
    try {
      const g = await api.graph(library.filter);
      // Unchanged data keeps the drawing (and the camera) as it is.
      if (seq === this.seq && !sameGraph(this.data, g)) this.data = g;
    } catch (e) {
      if (seq === this.seq) toasts.fail(e);
    } finally {
      if (seq === this.seq) this.loading = false;
    }
  }

  /** Draws data as it is (the synthetic graph of the scale test), out of any scope. */
  show(data: GraphData) {
    library.session = '';
    timeline.clear();
    this.data = data;
  }

  // ---- scope ----

  async selectProject(path: string) {
    library.session = '';
    timeline.clear();
    try {
      await library.setProject(path);
    } catch (e) {
      toasts.fail(e);
    }
    await this.load();
  }

  /** Shows session id alone; again: the whole project. */
  async selectSession(id: string) {
    library.session = library.session === id ? '' : id;
    await Promise.all([this.load(), timeline.load()]);
  }

  setDates(from: string, to: string) {
    library.from = from;
    library.to = to;
    void this.load();
  }

  // ---- the legend and the layout ----

  toggleNodeType(t: string) {
    if (this.hiddenNodeTypes.has(t)) this.hiddenNodeTypes.delete(t);
    else this.hiddenNodeTypes.add(t);
  }

  toggleEdgeType(t: string) {
    if (this.hiddenEdgeTypes.has(t)) this.hiddenEdgeTypes.delete(t);
    else this.hiddenEdgeTypes.add(t);
  }

  toggleLayout() {
    this.layout = this.layout === 'lanes' ? 'force' : 'lanes';
  }

  // ---- focus mode ----

  /** Focuses on the selected node (else the keyboard's), depth 1; again: the whole graph. */
  toggleFocus() {
    if (this.focus) {
      this.focus = null;
      return;
    }
    const id = this.selected ?? this.cursor;
    if (id && this.nodeById.has(id)) this.focus = { id, depth: 1 };
    else toasts.fail('Select a node to focus on (F)');
  }

  /** Sets focus mode's depth (1 to 3); focuses on the selected node when it is off. */
  setFocusDepth(depth: number) {
    const d = Math.min(3, Math.max(1, Math.round(depth)));
    if (this.focus) this.focus = { ...this.focus, depth: d };
    else {
      const id = this.selected ?? this.cursor;
      if (id && this.nodeById.has(id)) this.focus = { id, depth: d };
    }
  }

  // ---- the selection ----

  /**
   * Selects a node; with center, moves the camera to it. A node outside the
   * current filter brings its session into view first.
   */
  /** Draws a bridge path over the graph and opens its source (Esc lets go of it). */
  async showPath(ids: string[]) {
    this.path = ids.length > 1 ? ids : null;
    if (ids.length > 0) await this.selectNode(ids[0], true);
  }

  async selectNode(id: string | null, center = false) {
    this.selected = id;
    if (!id) return;
    this.cursor = id;
    views.current = 'graph';
    imports.closePanel();
    const node = this.nodeById.get(id);
    if (node) {
      this.hiddenNodeTypes.delete(node.type);
      if (center) this.controls?.center(id);
      return;
    }
    try {
      const detail = await api.node(id);
      this.hiddenNodeTypes.delete(detail.node.classification.type);
      const project = detail.node.classification.project;
      library.from = '';
      library.to = '';
      if (library.project && library.project !== project) await library.setProject(project);
      library.session = detail.node.source.sessionId;
      if (center) this.pendingCenter = id;
      await Promise.all([this.load(), timeline.load()]);
    } catch (e) {
      toasts.fail(e);
    }
  }

  /** The previous (-1) or next (+1) segment of the selected node's session. */
  stepSegment(dir: -1 | 1) {
    const cur = this.selected ? this.nodeById.get(this.selected) : undefined;
    let order: string[];
    if (timeline.segments.length && (!cur || cur.sessionId === library.session)) {
      order = timeline.segments.map((t) => t.nodeId);
    } else if (cur) {
      order = this.data.nodes
        .filter((n) => n.sessionId === cur.sessionId && !n.knowledge)
        .sort((a, b) => a.segment - b.segment)
        .map((n) => n.id);
    } else return;
    const i = this.selected ? order.indexOf(this.selected) : -1;
    const next = order[i < 0 ? 0 : i + dir];
    if (next) void this.selectNode(next, true);
  }
}

/** Same nodes and edges (ids, labels, types) in the same order. */
export function sameGraph(a: GraphData, b: GraphData): boolean {
  const an = a.nodes ?? [], bn = b.nodes ?? [], ae = a.edges ?? [], be = b.edges ?? [];
  if (an.length !== bn.length || ae.length !== be.length) return false;
  for (let i = 0; i < an.length; i++) {
    const x = an[i], y = bn[i];
    if (x.id !== y.id || x.label !== y.label || x.type !== y.type || x.entries !== y.entries) return false;
  }
  for (let i = 0; i < ae.length; i++) if (ae[i].id !== be[i].id || ae[i].type !== be[i].type) return false;
  return true;
}

export const graph = new KnowledgeGraph();
library.onReload(() => graph.load());

// The window's shared state: what is selected and filtered, and the data
// loaded for it. Components read it and call its actions; only the actions
// call the api.

import { SvelteSet } from 'svelte/reactivity';
import { api } from './api';
import type {
  GraphData,
  GraphFilter,
  ImportProgress,
  ImportReport,
  Project,
  SessionSummary,
  Stats,
  TimelineSegment,
} from './types';

export type LayoutMode = 'lanes' | 'force';
/** The window's two views: the knowledge graph of sessions, and the loom. */
export type ViewName = 'graph' | 'loom';

/** Camera commands the graph view carries out (set by GraphView). */
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

class AppState {
  view = $state<ViewName>('graph');
  stats = $state<Stats | null>(null);
  projects = $state.raw<Project[]>([]);
  sessions = $state.raw<SessionSummary[]>([]);
  /** "" = all projects. */
  project = $state('');
  /** "" = no session selected (the graph shows the project). */
  session = $state('');
  from = $state('');
  to = $state('');
  listFilter = $state('');

  graph = $state.raw<GraphData>({ nodes: [], edges: [] });
  graphLoading = $state(false);
  hiddenNodeTypes = new SvelteSet<string>();
  hiddenEdgeTypes = new SvelteSet<string>();
  layout = $state<LayoutMode>('lanes');

  selected = $state<string | null>(null);
  /** The node the keyboard is on in the graph (arrow keys move it, Enter opens it). */
  cursor = $state<string | null>(null);
  timeline = $state.raw<TimelineSegment[]>([]);

  importing = $state(false);
  progress = $state<ImportProgress | null>(null);
  /** What the import is doing before the Go side reports progress ("Reading 3 files…"). */
  stage = $state('');
  report = $state.raw<ImportReport | null>(null);
  importError = $state('');
  /** Import results panel shown. */
  showImport = $state(false);

  showHelp = $state(false);
  errors = $state<string[]>([]);

  controls: GraphControls | null = null;
  /** A node to center once the graph holding it is drawn. */
  pendingCenter: string | null = null;

  /** Sessions by id, for names in lanes and panels. */
  sessionById = $derived(new Map(this.sessions.map((s) => [s.id, s])));
  /** Graph nodes by id. */
  nodeById = $derived(new Map((this.graph.nodes ?? []).map((n) => [n.id, n])));

  private graphSeq = 0;
  private refreshTimer: ReturnType<typeof setTimeout> | undefined;

  /** Coalesces bursts of library:changed into one refresh. */
  requestRefresh() {
    clearTimeout(this.refreshTimer);
    this.refreshTimer = setTimeout(() => void this.refresh(), 150);
  }

  /** The previous (-1) or next (+1) segment of the selected node's session. */
  stepSegment(dir: -1 | 1) {
    const cur = this.selected ? this.nodeById.get(this.selected) : undefined;
    let order: string[];
    if (this.timeline.length && (!cur || cur.sessionId === this.session)) {
      order = this.timeline.map((t) => t.nodeId);
    } else if (cur) {
      order = (this.graph.nodes ?? [])
        .filter((n) => n.sessionId === cur.sessionId)
        .sort((a, b) => a.segment - b.segment)
        .map((n) => n.id);
    } else return;
    const i = this.selected ? order.indexOf(this.selected) : -1;
    const next = order[i < 0 ? 0 : i + dir];
    if (next) void this.selectNode(next, true);
  }

  get filter(): GraphFilter {
    const f: GraphFilter = {};
    if (this.session) f.sessionId = this.session;
    else if (this.project) f.project = this.project;
    if (this.from) f.from = this.from;
    if (this.to) f.to = `${this.to}T23:59:59.999Z`;
    return f;
  }

  fail(e: unknown) {
    const msg = e instanceof Error ? e.message : String(e);
    this.errors = [...this.errors.slice(-3), msg];
  }

  dismissError(i: number) {
    this.errors = this.errors.filter((_, j) => j !== i);
  }

  /** Reloads everything shown (after start-up and on library:changed). */
  async refresh() {
    try {
      const [stats, projects, sessions] = await Promise.all([
        api.stats(),
        api.projects(),
        api.sessions(this.project),
      ]);
      this.stats = stats;
      this.projects = projects;
      this.sessions = sessions;
    } catch (e) {
      this.fail(e);
    }
    await Promise.all([this.loadGraph(), this.loadTimeline()]);
  }

  async loadGraph() {
    const seq = ++this.graphSeq;
    this.graphLoading = true;
    try {
      const g = await api.graph(this.filter);
      // Unchanged data keeps the drawing (and the camera) as it is.
      if (seq === this.graphSeq && !sameGraph(this.graph, g)) this.graph = g;
    } catch (e) {
      if (seq === this.graphSeq) this.fail(e);
    } finally {
      if (seq === this.graphSeq) this.graphLoading = false;
    }
  }

  async loadTimeline() {
    const id = this.session;
    if (!id) {
      this.timeline = [];
      return;
    }
    try {
      const t = await api.timeline(id);
      if (this.session === id) this.timeline = t;
    } catch (e) {
      this.fail(e);
    }
  }

  async selectProject(path: string) {
    this.project = path;
    this.session = '';
    this.timeline = [];
    try {
      this.sessions = await api.sessions(path);
    } catch (e) {
      this.fail(e);
    }
    await this.loadGraph();
  }

  async selectSession(id: string) {
    this.session = this.session === id ? '' : id;
    await Promise.all([this.loadGraph(), this.loadTimeline()]);
  }

  setDates(from: string, to: string) {
    this.from = from;
    this.to = to;
    void this.loadGraph();
  }

  toggleNodeType(t: string) {
    if (this.hiddenNodeTypes.has(t)) this.hiddenNodeTypes.delete(t);
    else this.hiddenNodeTypes.add(t);
  }

  toggleEdgeType(t: string) {
    if (this.hiddenEdgeTypes.has(t)) this.hiddenEdgeTypes.delete(t);
    else this.hiddenEdgeTypes.add(t);
  }

  /**
   * Selects a node; with center, moves the camera to it. A node outside the
   * current filter brings its session into view first.
   */
  async selectNode(id: string | null, center = false) {
    this.selected = id;
    if (!id) return;
    this.cursor = id;
    this.view = 'graph';
    if (!this.importing) this.showImport = false;
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
      this.from = '';
      this.to = '';
      if (this.project && this.project !== project) {
        this.project = project;
        this.sessions = await api.sessions(project);
      }
      this.session = detail.node.source.sessionId;
      if (center) this.pendingCenter = id;
      await Promise.all([this.loadGraph(), this.loadTimeline()]);
    } catch (e) {
      this.fail(e);
    }
  }

  // ---- import ----

  startImport() {
    this.importing = true;
    this.progress = null;
    this.stage = '';
    this.report = null;
    this.importError = '';
    this.showImport = true;
  }

  async runImport(work: () => Promise<ImportReport>) {
    this.startImport();
    try {
      const report = await work();
      this.report = report;
      // A clean import needs no reading: the panel goes away by itself.
      if (report.totals.failed === 0 && report.totals.malformed === 0 && report.files?.every((f) => !f.pendingTail)) {
        setTimeout(() => {
          if (this.report === report && !this.importing) this.showImport = false;
        }, 8000);
      }
    } catch (e) {
      this.importError = e instanceof Error ? e.message : String(e);
    } finally {
      this.importing = false;
      this.stage = '';
    }
    await this.refresh();
  }

  onProgress(p: ImportProgress) {
    this.progress = p;
  }

  onImportDone(r: ImportReport) {
    // A report for an import this window did not start (another window, the CLI).
    if (!this.importing) {
      this.report = r;
      this.showImport = true;
    }
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

export const app = new AppState();

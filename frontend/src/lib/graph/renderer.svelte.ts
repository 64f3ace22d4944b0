// The knowledge graph on a canvas: sigma.js over the graphology model
// (model.ts), the lane layout stretched to the view (framing.ts) or
// ForceAtlas2 (force.svelte.ts), the camera (camera.ts), the pointer
// (hover.svelte.ts) and the keyboard (cursor.svelte.ts), and the camera
// commands the rest of the window uses (graph.controls).

import Sigma from 'sigma';
import { EdgeArrowProgram } from 'sigma/rendering';
import { EdgeCurvedArrowProgram } from '@sigma/edge-curve';
import { NodeSquareProgram } from '@sigma/node-square';
import { library } from '../library/library.svelte';
import { links } from '../links/links.svelte';
import type { GraphData } from '../types';
import { centerOn } from './camera';
import { KeyboardCursor, type CursorHost } from './cursor.svelte';
import { cssVar, drawHover, labelDrawer, type LabelRoom } from './draw';
import { ForceLayout } from './force.svelte';
import { boundsOf, columnsForView, laneStretch, restFrame, STAGE_PADDING } from './framing';
import { graph, type GraphControls, type LayoutMode } from './graph.svelte';
import { Hover } from './hover.svelte';
import { placeLaneLabels, type LaneLabel } from './laneLabels';
import { LANE_GAP, SEGMENT_GAP, type Lane, type LaneLayout } from './layout';
import { KNOWLEDGE_PROGRAM } from './knowledgeNodes';
import { fillModel, layOut, newModel, type EdgeAttrs, type NodeAttrs } from './model';
import { edgeReducer, nodeReducer, type Emphasis } from './reducers';
import { REDUCED_MOTION, motionMs, sigmaMotionSettings } from './motion';
import {
  centroids, CLUSTER_COLORS, findCommunities, OPEN_RATIO, OVERVIEW_MIN_NODES, placeClusterLabels, type ClusterLabel, type Community,
} from './communities';

type GraphSigma = Sigma<NodeAttrs, EdgeAttrs>;

/** How many sigma render times are kept (the scale check reads them). */
const RENDER_TIMES = 240;

export class GraphRenderer implements CursorHost {
  readonly model = newModel();
  sigma: GraphSigma | null = null;
  readonly hover = new Hover();
  readonly cursor = new KeyboardCursor(this);
  readonly force = new ForceLayout();
  /** The lanes' titles over the canvas. */
  laneLabels = $state.raw<LaneLabel[]>([]);
  /** Why the canvas could not start (no WebGL). */
  webglError = $state('');
  /** The clusters' labels over the canvas, while a large graph is zoomed out. */
  clusterLabels = $state.raw<ClusterLabel[]>([]);
  /** The communities of a large graph (communities.ts), the largest first; none for a small one. */
  private communities: Community[] = [];
  private clusterColorOf = new Map<string, string>();
  /** A large graph is zoomed out: its clusters are drawn closed. */
  private closed = false;
  private clusterSeq = 0;
  /** The clusters' centroids in graph coordinates, and when they were measured (ms). */
  private centres: ({ x: number; y: number } | null)[] = [];
  private centresAt = 0;

  /** The lane layout of the current data, and the lanes as drawn (stretched). */
  private layout: LaneLayout = { positions: new Map(), lanes: [], order: [], columnWidth: 0 };
  /** The nodes drawn, laid out again for the view's shape. */
  private nodes: GraphData['nodes'] = [];
  private lanes: Lane[] = [];
  /** Vertical stretch of the lane layout, so lanes use the view's height. */
  private stretch = 1;
  private readonly room: LabelRoom = {
    get lanes() {
      return graph.layout === 'lanes';
    },
    segment: 280,
    lane: 0,
    halo: '#ffffff',
  };
  private readonly emphasis: Emphasis;
  private dimColor = '#c4cad3';
  private readonly renderTimes: number[] = [];
  private container: HTMLElement | null = null;

  constructor() {
    const r = this;
    this.emphasis = {
      get hovered() {
        return r.hover.node;
      },
      get neighbours() {
        return r.hover.neighbours;
      },
      get cursorShown() {
        return r.cursor.active;
      },
      get dim() {
        return r.dimColor;
      },
      get clusterColor() {
        return r.closed && !graph.selected && !graph.path ? (id: string) => r.clusterColorOf.get(id) : null;
      },
    };
  }

  get order(): string[] {
    return this.layout.order;
  }

  /** Starts sigma in container; returns what undoes it (destroy() kills sigma). */
  mount(container: HTMLElement): () => void {
    this.container = container;
    let s: GraphSigma;
    try {
      s = new Sigma<NodeAttrs, EdgeAttrs>(this.model, container, {
        allowInvalidContainer: true,
        renderEdgeLabels: false,
        enableEdgeEvents: true,
        defaultEdgeType: 'arrow',
        edgeProgramClasses: { arrow: EdgeArrowProgram, curved: EdgeCurvedArrowProgram },
        nodeProgramClasses: { [KNOWLEDGE_PROGRAM]: NodeSquareProgram },
        labelColor: { color: cssVar('--graph-label', '#2a3140') },
        labelFont: getComputedStyle(document.body).fontFamily,
        labelSize: 12,
        labelWeight: '500',
        labelRenderedSizeThreshold: 7,
        labelDensity: 0.5,
        zIndex: true,
        minCameraRatio: 0.01,
        ...sigmaMotionSettings(),
        maxCameraRatio: 12,
        stagePadding: STAGE_PADDING,
        defaultDrawNodeHover: drawHover,
        defaultDrawNodeLabel: labelDrawer(this.room),
        nodeReducer: nodeReducer(this.emphasis),
        edgeReducer: edgeReducer(this.model, this.emphasis),
      });
    } catch (e) {
      this.webglError = e instanceof Error ? e.message : String(e);
      return () => {};
    }
    this.sigma = s;
    this.listen(s, container);
    graph.controls = this.controls(s, container);

    const ro = new ResizeObserver(() => {
      s.resize();
      if (graph.layout === 'lanes' && !this.force.active) this.placeLanes();
      else this.frame();
      s.refresh();
    });
    ro.observe(container);
    const mq = matchMedia('(prefers-color-scheme: dark)');
    const onTheme = () => {
      this.room.halo = cssVar('--graph-bg', '#ffffff');
      this.dimColor = cssVar('--border-strong', '#c4cad3');
      s.setSetting('labelColor', { color: cssVar('--graph-label', '#2a3140') });
    };
    onTheme();
    mq.addEventListener('change', onTheme);
    // The system's reduce-motion setting, switched while the graph is open.
    const motion = matchMedia(REDUCED_MOTION);
    const onMotion = () => s.setSettings(sigmaMotionSettings());
    motion.addEventListener('change', onMotion);
    return () => {
      ro.disconnect();
      mq.removeEventListener('change', onTheme);
      motion.removeEventListener('change', onMotion);
    };
  }

  destroy() {
    this.force.stop();
    graph.controls = null;
    this.sigma?.kill();
    this.sigma = null;
  }

  private listen(s: GraphSigma, container: HTMLElement) {
    const hover = this.hover;
    // Dragging a node onto another links them ("Link to…" opens at the type):
    // while a node is held the camera stays put and the cursor says so.
    let dragFrom: string | null = null;
    let dragged = false;
    let linked = false;
    s.on('downNode', ({ node }) => {
      dragFrom = node;
      dragged = false;
    });
    s.on('moveBody', ({ event }) => {
      if (!dragFrom) return;
      dragged = true;
      event.preventSigmaDefault();
      container.style.cursor = 'copy';
    });
    s.on('upNode', ({ node }) => {
      if (dragFrom && dragged && node !== dragFrom) {
        linked = true;
        hover.tooltip = null;
        void links.linkNodes(dragFrom, node);
      }
      dragFrom = null;
    });
    s.on('upStage', () => {
      dragFrom = null;
      container.style.cursor = '';
    });
    s.on('clickNode', ({ node }) => {
      // The click that ends a drag onto a node made a link; it selects nothing.
      if (linked) {
        linked = false;
        return;
      }
      // The panel says what the tooltip said.
      hover.tooltip = null;
      void graph.selectNode(node);
    });
    s.on('enterEdge', ({ edge, event }) => {
      const { width, height } = s.getDimensions();
      if (hover.enterEdge(edge, event, width, height)) container.style.cursor = 'default';
    });
    s.on('leaveEdge', () => {
      hover.leaveEdge();
      if (!hover.node) container.style.cursor = '';
    });
    s.on('enterNode', ({ node, event }) => {
      const { width, height } = s.getDimensions();
      hover.enterNode(node, this.model.neighbors(node), graph.nodeById.get(node), event, width, height);
      container.style.cursor = 'pointer';
    });
    s.on('leaveNode', () => {
      hover.leaveNode();
      container.style.cursor = '';
      if (this.cursor.active) this.cursor.placeTip();
    });
    // Main-thread time of each sigma render, for the scale check.
    let renderStart = 0;
    // beforeRender comes before sigma processes new data, so measure again
    // once the new positions are framed.
    s.on('beforeRender', () => {
      renderStart = performance.now();
      this.measureLabelRoom();
    });
    s.on('afterProcess', () => this.measureLabelRoom());
    s.on('afterRender', () => {
      this.updateLaneLabels();
      this.updateClusters();
      if (this.cursor.active) this.cursor.placeTip();
      this.renderTimes.push(performance.now() - renderStart);
      if (this.renderTimes.length > RENDER_TIMES) this.renderTimes.shift();
    });
  }

  private controls(s: GraphSigma, container: HTMLElement): GraphControls {
    return {
      zoomIn: () => s.getCamera().animatedZoom({ duration: motionMs(200) }),
      zoomOut: () => s.getCamera().animatedUnzoom({ duration: motionMs(200) }),
      fit: () => {
        // In focus mode: the focused neighbourhood; else the whole graph.
        const focus = graph.focusSet;
        if (focus && focus.size > 0) fitNodes(s, focus);
        else s.getCamera().animatedReset({ duration: motionMs(300) });
      },
      center: (id) => this.center(id),
      screenPosition: (id) => {
        if (!this.model.hasNode(id)) return null;
        const a = this.model.getNodeAttributes(id);
        const p = s.graphToViewport({ x: a.x, y: a.y });
        const r = container.getBoundingClientRect();
        return { x: r.left + p.x, y: r.top + p.y };
      },
      relayout: () => (graph.layout === 'force' ? this.startForce() : this.applyLanes()),
      renderTimes: () => [...this.renderTimes],
    };
  }

  /** Draws data: a new model, laid out in the current mode, the camera at rest. */
  build(data: GraphData) {
    this.force.stop();
    this.hover.reset(data.edges);
    this.layout = fillModel(this.model, data);
    this.nodes = data.nodes;
    this.findClusters(data);
    const s = this.sigma;
    if (s) {
      if (graph.layout === 'lanes') this.placeLanes();
      s.getCamera().setState({ x: 0.5, y: 0.5, ratio: 1, angle: 0 });
      s.refresh();
    }
    if (graph.layout === 'force') this.startForce();
    const pending = graph.pendingCenter;
    if (pending && this.model.hasNode(pending)) {
      graph.pendingCenter = null;
      requestAnimationFrame(() => this.center(pending));
    }
  }

  /** The layout mode changed. */
  setLayout(mode: LayoutMode) {
    if (mode === 'force') this.startForce();
    else {
      this.force.stop();
      this.applyLanes();
    }
  }

  /** Draws again what changed in visibility or emphasis (no new data). */
  redraw() {
    this.sigma?.refresh({ skipIndexation: true });
  }

  center(id: string, zoom = true) {
    if (this.sigma) centerOn(this.sigma, this.model, id, zoom, graph.layout === 'lanes');
  }

  private startForce() {
    if (this.model.order < 2) return;
    this.force.stop();
    this.sigma?.setCustomBBox(null);
    this.force.start(this.model);
  }

  private applyLanes() {
    this.placeLanes();
    this.sigma?.getCamera().setState({ x: 0.5, y: 0.5, ratio: 1, angle: 0 });
  }

  /**
   * Puts the nodes at their lane positions, in as many columns as give each
   * lane room for its title in the view, stretched to the view's height.
   */
  private placeLanes() {
    const s = this.sigma;
    if (!s) return;
    const { width, height } = s.getDimensions();
    this.layout = layOut(this.nodes ?? [], columnsForView(width, height));
    const k = laneStretch(boundsOf(this.layout.positions.values()), width, height);
    this.stretch = k;
    this.lanes = this.layout.lanes.map((l) => ({ ...l, y: l.y * k }));
    const positions = this.layout.positions;
    this.model.updateEachNodeAttributes((id, attrs) => {
      const p = positions.get(id);
      return p ? { ...attrs, x: p.x, y: p.y * k } : attrs;
    });
    this.frame();
  }

  /** The camera's rest frame: the whole graph, a small lane graph at most at MAX_LANE_SCALE. */
  private frame() {
    const s = this.sigma;
    if (!s) return;
    if (graph.layout !== 'lanes' || this.model.order === 0) {
      s.setCustomBBox(null);
      return;
    }
    const points: { x: number; y: number }[] = [];
    this.model.forEachNode((_, a) => void points.push(a));
    const { width, height } = s.getDimensions();
    s.setCustomBBox(restFrame(boundsOf(points), width, height));
  }

  /** The pixels between two segments and between two lanes, for the labels (lanes layout). */
  private measureLabelRoom() {
    const s = this.sigma;
    if (!s || graph.layout !== 'lanes') return;
    const a = s.graphToViewport({ x: 0, y: 0 });
    const b = s.graphToViewport({ x: SEGMENT_GAP, y: 0 });
    const c = s.graphToViewport({ x: 0, y: -LANE_GAP * this.stretch });
    this.room.segment = Math.min(320, Math.hypot(b.x - a.x, b.y - a.y));
    this.room.lane = Math.hypot(c.x - a.x, c.y - a.y);
  }

  /**
   * Finds the communities of a large graph (none for a small one), after
   * the first frame: the graph is drawn first, its overview a moment later.
   */
  private findClusters(data: GraphData) {
    const nodes = data.nodes;
    const seq = ++this.clusterSeq;
    this.clusterColorOf.clear();
    this.communities = [];
    this.closed = false;
    if (this.clusterLabels.length) this.clusterLabels = [];
    if (nodes.length < OVERVIEW_MIN_NODES) return;
    setTimeout(() => {
      if (seq !== this.clusterSeq) return;
      this.communities = findCommunities(nodes, data.edges, library.projectName);
      this.centres = [];
      this.communities.forEach((c, i) => {
        const color = CLUSTER_COLORS[i % CLUSTER_COLORS.length];
        for (const id of c.members) this.clusterColorOf.set(id, color);
      });
      this.sigma?.refresh({ skipIndexation: true });
    }, 50);
  }

  /** Closes or opens the clusters for the camera as it is, and places their labels. */
  private updateClusters() {
    const s = this.sigma;
    if (!s || this.communities.length === 0) {
      if (this.clusterLabels.length) this.clusterLabels = [];
      return;
    }
    const closed = s.getCamera().getState().ratio > OPEN_RATIO;
    if (closed !== this.closed) {
      this.closed = closed;
      requestAnimationFrame(() => this.sigma?.refresh({ skipIndexation: true }));
    }
    if (!closed) {
      if (this.clusterLabels.length) this.clusterLabels = [];
      return;
    }
    const { width, height } = s.getDimensions();
    const m = this.model;
    // The nodes move only while a layout runs: centroids at most every 400 ms.
    const now = performance.now();
    if (this.centres.length !== this.communities.length || now - this.centresAt > 400) {
      this.centres = centroids(this.communities, (id) => (m.hasNode(id) ? m.getNodeAttributes(id) : null));
      this.centresAt = now;
    }
    const labels = placeClusterLabels(this.communities, this.centres, (p) => s.graphToViewport(p), width, height);
    const same = labels.length === this.clusterLabels.length &&
      labels.every((l, i) => l.key === this.clusterLabels[i].key && Math.abs(l.x - this.clusterLabels[i].x) < 0.5 && Math.abs(l.y - this.clusterLabels[i].y) < 0.5);
    if (!same) this.clusterLabels = labels;
  }

  /** Places the lanes' titles for the camera as it is. */
  updateLaneLabels() {
    const s = this.sigma;
    if (!s || graph.layout !== 'lanes' || this.lanes.length === 0 || this.room.lane < 44) {
      if (this.laneLabels.length) this.laneLabels = [];
      return;
    }
    this.laneLabels = placeLaneLabels(s, this.lanes, this.layout.columnWidth, library.sessionById);
  }
}

/**
 * Moves the camera onto ids (their display positions' bounding box, with a
 * margin); the whole graph's extent is ratio 1.
 */
function fitNodes(s: GraphSigma, ids: Iterable<string>) {
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (const id of ids) {
    const d = s.getNodeDisplayData(id);
    if (!d) continue;
    x0 = Math.min(x0, d.x);
    y0 = Math.min(y0, d.y);
    x1 = Math.max(x1, d.x);
    y1 = Math.max(y1, d.y);
  }
  if (!Number.isFinite(x0)) return;
  const ratio = Math.min(1, Math.max(0.15, 1.3 * Math.max(x1 - x0, y1 - y0)));
  s.getCamera().animate({ x: (x0 + x1) / 2, y: (y0 + y1) / 2, ratio, angle: 0 }, { duration: motionMs(300) });
}

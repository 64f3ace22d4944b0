// The reasoning graph as the view draws it: pure functions over what
// Reasoning.Open and Reasoning.At give (docs/CONTRACT.md, "Reasoning
// notes").
//
// The graph is laid out as a tree from the task, left to right (d3-hierarchy
// tidy tree): each shown node hangs under the source of its first edge in,
// the other edges are drawn as cross links. Folded nodes are not shown: a
// summary stands for its span, and opening it shows the span inside a box
// under it, laid out by the edges the fold dropped.

import { hierarchy, tree as d3tree } from 'd3-hierarchy';
import type { ReasoningDiff, ReasoningEdgeView, ReasoningNodeView, ReasoningSpan, ReasoningState } from '../types';

/** Card size and gaps, in scene pixels. */
export const CARD_W = 220;
export const CARD_H = 58;
const GAP_X = 64;
const GAP_Y = 14;
const BOX_PAD = 10;
const MARGIN = 20;

/** What the scene is made from: the graph's nodes (content) and one step's state. */
export interface SceneInput {
  nodes: ReadonlyMap<number, ReasoningNodeView>;
  /** The nodes that exist at the step, with their state then. */
  states: ReadonlyMap<number, ReasoningState>;
  edges: readonly ReasoningEdgeView[];
  spans: readonly ReasoningSpan[];
  /** Summaries whose span is open. */
  expanded: ReadonlySet<number>;
}

export interface SceneNode {
  id: number;
  node: ReasoningNodeView;
  state: ReasoningState;
  /** Top-left corner. */
  x: number;
  y: number;
  depth: number;
  /** Its parent in the tree (null: a root). */
  parent: number | null;
  children: number[];
  /** The summary whose open span it is in (null: none). */
  inSpan: number | null;
  /** For a summary with a span: how many nodes it folded, and whether it is open. */
  span: { count: number; open: boolean } | null;
}

export interface SceneEdge {
  src: number;
  dst: number;
  kind: string;
  rationale: string;
  /** The edge the tree hangs dst from. */
  tree: boolean;
  /** An edge between folded nodes, inside an open span (the fold dropped it). */
  inside: boolean;
  /** SVG path from src's right side to dst's left side. */
  d: string;
  /** Bounding box, for culling. */
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

/** The box drawn around an open span. */
export interface SpanBox {
  summary: number;
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface Scene {
  nodes: SceneNode[];
  byId: Map<number, SceneNode>;
  edges: SceneEdge[];
  boxes: SpanBox[];
  width: number;
  height: number;
}

/** A node's parts of an open span: the summary it is folded into. */
function spanIndex(spans: readonly ReasoningSpan[]) {
  const into = new Map<number, number>();
  const bySummary = new Map<number, ReasoningSpan>();
  for (const s of spans) {
    bySummary.set(s.summary, s);
    for (const id of s.nodes) into.set(id, s.summary);
  }
  return { into, bySummary };
}

/** The path of an edge from a's right side to b's left side. */
function edgePath(ax: number, ay: number, bx: number, by: number): string {
  const x1 = ax + CARD_W;
  const y1 = ay + CARD_H / 2;
  const x2 = bx;
  const y2 = by + CARD_H / 2;
  if (x2 > x1) {
    const mx = (x1 + x2) / 2;
    return `M${x1},${y1}C${mx},${y1} ${mx},${y2} ${x2},${y2}`;
  }
  // Back or sideways (a cross link to an earlier column): a loop over the top.
  const lift = Math.min(ay, by) - 24;
  return `M${x1},${y1}C${x1 + 40},${y1} ${x1 + 40},${lift} ${(x1 + x2) / 2},${lift}S${x2 - 40},${y2} ${x2},${y2}`;
}

/** A laid-out forest: positions relative to its top-left corner, and its size. */
interface Placed {
  pos: Map<number, { x: number; y: number; depth: number }>;
  w: number;
  h: number;
}

/**
 * Lays out the graph at one step. Shown: every node that exists then and is
 * not inside a span (a folded node whose summary is known), and the nodes of
 * the open spans of shown summaries. A folded node whose summary is not
 * known is shown where its edges leave it (usually a root).
 *
 * The tree is d3-hierarchy's tidy tree, left to right. An open span is laid
 * out on its own (by the edges the fold dropped; a span open inside it the
 * same way) and takes a place in its summary's column to the right: a chain
 * of invisible stand-ins as tall as its box, one per column it spans, so
 * that the tidy tree keeps every other node out of the box.
 */
export function layoutScene(input: SceneInput): Scene {
  const { into, bySummary } = spanIndex(input.spans);
  const shown = new Map<number, { inSpan: number | null }>();
  const isShown = (id: number, seen = new Set<number>()): boolean => {
    if (!input.states.has(id) || !input.nodes.has(id)) return false;
    const s = into.get(id);
    if (s === undefined) return true;
    if (seen.has(s)) return false; // a span that holds its own summary: cut
    seen.add(s);
    return input.expanded.has(s) && isShown(s, seen);
  };
  for (const id of input.states.keys()) {
    if (isShown(id)) shown.set(id, { inSpan: into.get(id) ?? null });
  }
  const group = (id: number) => shown.get(id)!.inSpan;

  // Parents, within a group (the main tree, or one open span): the first
  // edge in from a node of the same group; in a span, the edges the fold
  // dropped.
  const parent = new Map<number, number>();
  const treeEdge = new Set<string>();
  const key = (a: number, b: number) => `${a}>${b}`;
  const wouldCycle = (child: number, p: number) => {
    for (let x: number | undefined = p, n = 0; x !== undefined && n <= shown.size; x = parent.get(x), n++) if (x === child) return true;
    return false;
  };
  const setParent = (child: number, p: number) => {
    if (parent.has(child) || child === p || !shown.has(p) || !shown.has(child) || group(p) !== group(child) || wouldCycle(child, p)) {
      return false;
    }
    parent.set(child, p);
    treeEdge.add(key(p, child));
    return true;
  };
  for (const e of input.edges) setParent(e.dst, e.src);
  const insideEdges: [number, number][] = [];
  const openSpans: number[] = [];
  const isOpen = new Set<number>();
  for (const [summary, sp] of bySummary) {
    if (!input.expanded.has(summary) || !shown.has(summary) || !sp.nodes.some((id) => shown.has(id))) continue;
    openSpans.push(summary);
    isOpen.add(summary);
    for (const [a, b] of sp.edges) {
      if (shown.has(a) && shown.has(b)) {
        insideEdges.push([a, b]);
        setParent(b, a);
      }
    }
  }
  const members = new Map<number | null, number[]>();
  const children = new Map<number, number[]>();
  for (const id of shown.keys()) {
    const g = group(id);
    (members.get(g) ?? members.set(g, []).get(g)!).push(id);
    const p = parent.get(id);
    if (p !== undefined) (children.get(p) ?? children.set(p, []).get(p)!).push(id);
  }
  for (const list of children.values()) list.sort((a, b) => a - b);

  // Lays out one group, its open spans first (inside out).
  const placed = new Map<number | null, Placed>();
  const place = (g: number | null): Placed => {
    const done = placed.get(g);
    if (done) return done;
    interface Datum {
      id: number;
      /** A stand-in for an open span: its summary, its height, and which column. */
      box?: { summary: number; h: number; col: number };
      children: Datum[];
    }
    const ids = (members.get(g) ?? []).slice().sort((a, b) => a - b);
    const boxChain = (summary: number): Datum[] => {
      const sub = place(summary);
      const cols = Math.max(1, Math.round((sub.w + GAP_X) / (CARD_W + GAP_X)));
      let chain: Datum[] = [];
      for (let c = cols - 1; c >= 0; c--) chain = [{ id: -2, box: { summary, h: sub.h, col: c }, children: chain }];
      return chain;
    };
    const build = (id: number): Datum => ({
      id,
      children: [...(isOpen.has(id) ? boxChain(id) : []), ...(children.get(id) ?? []).map(build)],
    });
    const roots = ids.filter((id) => !parent.has(id)).map(build);
    const h = hierarchy<Datum>({ id: -1, children: roots });
    const height = (d: { data: Datum }) => d.data.box?.h ?? CARD_H;
    d3tree<Datum>()
      .nodeSize([CARD_H + GAP_Y, CARD_W + GAP_X])
      .separation((a, b) => ((height(a) + height(b)) / 2 + GAP_Y) / (CARD_H + GAP_Y) * (a.parent === b.parent ? 1 : 1.2))(h);
    let top = Infinity;
    for (const d of h.descendants()) if (d.data.id !== -1) top = Math.min(top, (d.x ?? 0) - height(d) / 2);
    if (!Number.isFinite(top)) top = 0;
    const out: Placed = { pos: new Map(), w: 0, h: 0 };
    for (const d of h.descendants()) {
      const x = (d.depth - 1) * (CARD_W + GAP_X);
      const y = (d.x ?? 0) - height(d) / 2 - top;
      if (d.data.box) {
        if (d.data.box.col !== 0) continue;
        const sub = place(d.data.box.summary);
        for (const [id, p] of sub.pos) out.pos.set(id, { x: x + p.x, y: y + p.y, depth: d.depth - 1 + p.depth });
        out.w = Math.max(out.w, x + sub.w);
        out.h = Math.max(out.h, y + sub.h);
        continue;
      }
      if (d.data.id < 0) continue;
      out.pos.set(d.data.id, { x, y, depth: d.depth - 1 });
      out.w = Math.max(out.w, x + CARD_W);
      out.h = Math.max(out.h, y + CARD_H);
    }
    if (g !== null) {
      // A span: its box's padding around it.
      for (const p of out.pos.values()) {
        p.x += BOX_PAD;
        p.y += BOX_PAD;
      }
      out.w = Math.max(out.w, CARD_W) + 2 * BOX_PAD;
      out.h = Math.max(out.h, CARD_H) + 2 * BOX_PAD;
    }
    placed.set(g, out);
    return out;
  };
  const final = place(null);

  const nodes: SceneNode[] = [];
  const byId = new Map<number, SceneNode>();
  let width = 0;
  let height = 0;
  for (const [id, p] of final.pos) {
    const sp = bySummary.get(id);
    const n: SceneNode = {
      id,
      node: input.nodes.get(id)!,
      state: input.states.get(id)!,
      x: p.x + MARGIN,
      y: p.y + MARGIN,
      depth: p.depth,
      parent: parent.get(id) ?? (group(id) !== null && !parent.has(id) ? group(id) : null),
      children: [],
      inSpan: group(id),
      span: sp && sp.nodes.length ? { count: sp.nodes.length, open: isOpen.has(id) } : null,
    };
    nodes.push(n);
    byId.set(id, n);
    width = Math.max(width, n.x + CARD_W + MARGIN);
    height = Math.max(height, n.y + CARD_H + MARGIN);
  }
  for (const n of nodes) if (n.parent !== null) byId.get(n.parent)?.children.push(n.id);
  for (const n of nodes) {
    // A summary's open span first (its box sits before its other children).
    n.children.sort((a, b) => (byId.get(a)!.inSpan === n.id ? 0 : 1) - (byId.get(b)!.inSpan === n.id ? 0 : 1) || byId.get(a)!.y - byId.get(b)!.y);
  }
  nodes.sort((a, b) => a.id - b.id);

  const edges: SceneEdge[] = [];
  const addEdge = (src: number, dst: number, kind: string, rationale: string, inside: boolean, tree: boolean) => {
    const a = byId.get(src);
    const b = byId.get(dst);
    if (!a || !b) return;
    edges.push({
      src,
      dst,
      kind,
      rationale,
      tree,
      inside,
      d: edgePath(a.x, a.y, b.x, b.y),
      x1: Math.min(a.x + CARD_W, b.x) - 40,
      y1: Math.min(a.y, b.y) - 30,
      x2: Math.max(a.x + CARD_W, b.x) + 40,
      y2: Math.max(a.y, b.y) + CARD_H,
    });
  };
  for (const e of input.edges) addEdge(e.src, e.dst, e.kind, e.rationale, false, treeEdge.has(key(e.src, e.dst)));
  for (const [a, b] of insideEdges) addEdge(a, b, 'inside', '', true, treeEdge.has(key(a, b)));
  // A summary to the roots of its open span.
  for (const n of nodes) {
    if (n.inSpan !== null && !parent.has(n.id)) addEdge(n.inSpan, n.id, 'span', '', true, true);
  }

  const boxes: SpanBox[] = [];
  for (const summary of openSpans) {
    let x1 = Infinity;
    let y1 = Infinity;
    let x2 = -Infinity;
    let y2 = -Infinity;
    for (const n of nodes) {
      if (!inSpanOf(n, summary, byId)) continue;
      x1 = Math.min(x1, n.x);
      y1 = Math.min(y1, n.y);
      x2 = Math.max(x2, n.x + CARD_W);
      y2 = Math.max(y2, n.y + CARD_H);
    }
    if (Number.isFinite(x1)) boxes.push({ summary, x: x1 - BOX_PAD, y: y1 - BOX_PAD, w: x2 - x1 + 2 * BOX_PAD, h: y2 - y1 + 2 * BOX_PAD });
  }
  return { nodes, byId, edges, boxes, width, height };
}

/** Whether m sits in summary's open span, directly or in a span nested in it. */
function inSpanOf(m: SceneNode, summary: number, byId: Map<number, SceneNode>): boolean {
  for (let s = m.inSpan, n = 0; s !== null && n < 64; n++) {
    if (s === summary) return true;
    s = byId.get(s)?.inSpan ?? null;
  }
  return false;
}

/** The nodes and edges of scene that meet the rectangle (scene coordinates), for drawing. */
export function visibleIn(scene: Scene, x: number, y: number, w: number, h: number) {
  const x2 = x + w;
  const y2 = y + h;
  return {
    nodes: scene.nodes.filter((n) => n.x < x2 && n.x + CARD_W > x && n.y < y2 && n.y + CARD_H > y),
    edges: scene.edges.filter((e) => e.x1 < x2 && e.x2 > x && e.y1 < y2 && e.y2 > y),
    boxes: scene.boxes.filter((b) => b.x < x2 && b.x + b.w > x && b.y < y2 && b.y + b.h > y),
  };
}

export type Direction = 'left' | 'right' | 'up' | 'down';

/**
 * The node the arrow keys move to from id: left its parent, right its first
 * child (the one nearest in height), up and down its siblings; where there
 * is none, the nearest node that way.
 */
export function neighbour(scene: Scene, id: number, dir: Direction): number | null {
  const n = scene.byId.get(id);
  if (!n) return scene.nodes[0]?.id ?? null;
  if (dir === 'left' && n.parent !== null && scene.byId.has(n.parent)) return n.parent;
  if (dir === 'right' && n.children.length) {
    let best = n.children[0];
    for (const c of n.children) {
      if (Math.abs(scene.byId.get(c)!.y - n.y) < Math.abs(scene.byId.get(best)!.y - n.y)) best = c;
    }
    return best;
  }
  if ((dir === 'up' || dir === 'down') && n.parent !== null) {
    const sib = scene.byId.get(n.parent)?.children ?? [];
    const i = sib.indexOf(id) + (dir === 'up' ? -1 : 1);
    if (i >= 0 && i < sib.length) return sib[i];
  }
  let best: SceneNode | null = null;
  let bestScore = Infinity;
  for (const m of scene.nodes) {
    if (m.id === id) continue;
    const dx = m.x - n.x;
    const dy = m.y - n.y;
    const ahead = dir === 'left' ? -dx : dir === 'right' ? dx : dir === 'up' ? -dy : dy;
    if (ahead <= 0) continue;
    const side = dir === 'left' || dir === 'right' ? Math.abs(dy) : Math.abs(dx);
    const score = ahead + 2 * side;
    if (score < bestScore) {
      bestScore = score;
      best = m;
    }
  }
  return best?.id ?? null;
}

/** How the step's diff marks a node: added, its state changed, or neither. */
export function nodeMark(diff: ReasoningDiff | null | undefined, id: number): 'added' | 'changed' | '' {
  if (!diff) return '';
  if (diff.nodesAdded.includes(id)) return 'added';
  if (diff.nodesChanged.some((c) => c.id === id)) return 'changed';
  return '';
}

/** How the step's diff marks the edges: added, re-routed (by src>dst), and the ones it removed. */
export function edgeMarks(diff: ReasoningDiff | null | undefined) {
  const added = new Set<string>();
  const rerouted = new Set<string>();
  const removed: { src: number; dst: number; rerouted: boolean }[] = [];
  if (!diff) return { added, rerouted, removed };
  for (const e of diff.edgesAdded) added.add(`${e.src}>${e.dst}`);
  for (const r of diff.edgesRerouted) {
    rerouted.add(`${r.to.src}>${r.to.dst}`);
    removed.push({ src: r.from.src, dst: r.from.dst, rerouted: true });
  }
  for (const e of diff.edgesRemoved) removed.push({ src: e.src, dst: e.dst, rerouted: false });
  return { added, rerouted, removed };
}

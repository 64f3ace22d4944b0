// The tree map and walking the active path: pure functions over the nodes
// of Loom.Tree and the steps of Loom.ActivePathView.
//
// The map draws positions (LoomNode.position) with children from
// `children`; in buffer mode a version stands at its family's position.
// See docs/CONTRACT.md, "Loom notes".

import { hierarchy, tree as d3tree } from 'd3-hierarchy';
import type { LoomNode, LoomPathStep } from '../types';

/** One position of the map, with its shown children. */
export interface MapDatum {
  /** "" for the invisible root above several roots. */
  id: string;
  node: LoomNode | null;
  children: MapDatum[];
  /** Child positions, shown or not. */
  childCount: number;
  /** Positions below a collapsed one (0 when expanded). */
  folded: number;
}

/**
 * The positions of a tree as nested data: roots are positions no position
 * lists as a child; several roots (dialogue-mode edits of the root) hang
 * under an invisible root "". Collapsed positions keep their children out
 * and count them in `folded`. A cycle (only a tampered tree has one) is cut.
 */
export function mapData(nodes: readonly LoomNode[], isCollapsed: (id: string) => boolean = () => false): MapDatum {
  const pos = new Map<string, LoomNode>();
  for (const n of nodes) if (n.position) pos.set(n.id, n);
  const listed = new Set<string>();
  for (const n of pos.values()) for (const c of n.children ?? []) if (pos.has(c)) listed.add(c);
  const seen = new Set<string>();

  const count = (id: string, stack: Set<string>): number => {
    let k = 0;
    for (const c of pos.get(id)?.children ?? []) {
      if (!pos.has(c) || stack.has(c)) continue;
      stack.add(c);
      k += 1 + count(c, stack);
    }
    return k;
  };
  const build = (n: LoomNode): MapDatum => {
    seen.add(n.id);
    const kids = (n.children ?? []).filter((c) => pos.has(c) && !seen.has(c));
    const d: MapDatum = { id: n.id, node: n, children: [], childCount: kids.length, folded: 0 };
    if (kids.length && isCollapsed(n.id)) d.folded = count(n.id, new Set([n.id]));
    else for (const c of kids) if (!seen.has(c)) d.children.push(build(pos.get(c)!));
    return d;
  };

  const roots = [...pos.values()].filter((n) => !listed.has(n.id)).map(build);
  if (roots.length === 1) return roots[0];
  return { id: '', node: null, children: roots, childCount: roots.length, folded: 0 };
}

export interface MapPoint {
  id: string;
  node: LoomNode;
  x: number;
  y: number;
  depth: number;
  childCount: number;
  folded: number;
}

export interface MapLink {
  source: string;
  target: string;
  /** SVG path from the parent down to the child. */
  d: string;
}

export interface MapLayout {
  points: MapPoint[];
  links: MapLink[];
  width: number;
  height: number;
}

export interface MapOptions {
  /** Horizontal distance between neighbours, px. */
  dx?: number;
  /** Vertical distance between generations, px. */
  dy?: number;
  margin?: number;
}

/** Lays the map out top-down (d3-hierarchy's tidy tree), in px from the top left corner. */
export function layoutMap(data: MapDatum, opts: MapOptions = {}): MapLayout {
  const dx = opts.dx ?? 26;
  const dy = opts.dy ?? 48;
  const margin = opts.margin ?? 18;
  const root = hierarchy(data, (d) => d.children);
  d3tree<MapDatum>()
    .nodeSize([dx, dy])
    .separation((a, b) => (a.parent === b.parent ? 1 : 1.5))(root);
  const virtual = data.id === '';
  const shown = root.descendants().filter((d) => !(virtual && d.depth === 0));
  if (shown.length === 0) return { points: [], links: [], width: 0, height: 0 };
  let minX = Infinity;
  let maxX = -Infinity;
  let maxDepth = 0;
  const lift = virtual ? 1 : 0;
  for (const d of shown) {
    minX = Math.min(minX, d.x ?? 0);
    maxX = Math.max(maxX, d.x ?? 0);
    maxDepth = Math.max(maxDepth, d.depth - lift);
  }
  const X = (x: number | undefined) => (x ?? 0) - minX + margin;
  const Y = (depth: number) => (depth - lift) * dy + margin;
  const points: MapPoint[] = shown.map((d) => ({
    id: d.data.id,
    node: d.data.node!,
    x: X(d.x),
    y: Y(d.depth),
    depth: d.depth - lift,
    childCount: d.data.childCount,
    folded: d.data.folded,
  }));
  const links: MapLink[] = [];
  for (const d of shown) {
    if (!d.parent || (virtual && d.parent.depth === 0)) continue;
    const x0 = X(d.parent.x), y0 = Y(d.parent.depth), x1 = X(d.x), y1 = Y(d.depth);
    const ym = (y0 + y1) / 2;
    links.push({ source: d.parent.data.id, target: d.data.id, d: `M${x0},${y0}C${x0},${ym} ${x1},${ym} ${x1},${y1}` });
  }
  return { points, links, width: maxX - minX + 2 * margin, height: maxDepth * dy + 2 * margin };
}

/** The position a path step stands at: its own id, in buffer mode its family's. */
export function positionOf(step: LoomPathStep): string {
  return step.siblings.ids[step.siblings.index] ?? step.node.id;
}

/** The positions of a path, root first. */
export function pathPositions(steps: readonly LoomPathStep[]): string[] {
  return steps.map(positionOf);
}

/** Remembers, for every step of a path, which child the path went on to. */
export function rememberChildren(steps: readonly LoomPathStep[], lastChild: Map<string, string>) {
  for (let i = 0; i + 1 < steps.length; i++) lastChild.set(positionOf(steps[i]), positionOf(steps[i + 1]));
}

/**
 * Where a walk down from position `from` ends: along the children last
 * visited (lastChild) while they are still its children and not hidden.
 */
export function descend(from: string, byId: ReadonlyMap<string, LoomNode>, lastChild: ReadonlyMap<string, string>): string {
  let cur = from;
  const seen = new Set([cur]);
  for (;;) {
    const next = lastChild.get(cur);
    const n = byId.get(cur);
    if (!next || !n || seen.has(next) || !(n.children ?? []).includes(next) || byId.get(next)?.hidden) return cur;
    seen.add(next);
    cur = next;
  }
}

/**
 * The sibling position of a step in direction dir (+1 next, -1 previous),
 * skipping pruned ones; null at either end.
 */
export function siblingOf(step: LoomPathStep, dir: 1 | -1, byId: ReadonlyMap<string, LoomNode>): string | null {
  const ids = step.siblings.ids;
  for (let i = step.siblings.index + dir; i >= 0 && i < ids.length; i += dir) {
    if (!byId.get(ids[i])?.hidden) return ids[i];
  }
  return null;
}

/** The child to step down to from position id: the one last visited, else the first not hidden. */
export function childOf(id: string, byId: ReadonlyMap<string, LoomNode>, lastChild: ReadonlyMap<string, string>): string | null {
  const n = byId.get(id);
  const kids = (n?.children ?? []).filter((c) => byId.has(c));
  const last = lastChild.get(id);
  if (last && kids.includes(last)) return last;
  return kids.find((c) => !byId.get(c)?.hidden) ?? kids[0] ?? null;
}

/**
 * Where the path goes when step i of it is hidden (pruned, or under a
 * pruned node): the nearest visible sibling position, next ones first, then
 * previous ones (and down the branch last visited under it); with none, the
 * parent, where the path then ends. Null when step i is still visible, or
 * when it is the root and nothing is left.
 */
export function nearestVisible(
  steps: readonly LoomPathStep[],
  i: number,
  byId: ReadonlyMap<string, LoomNode>,
  lastChild: ReadonlyMap<string, string>,
): string | null {
  const step = steps[i];
  if (!step) return null;
  const pos = positionOf(step);
  if (!byId.get(pos)?.hidden && !byId.get(step.node.id)?.hidden) return null;
  const ids = step.siblings.ids;
  const at = ids.indexOf(pos);
  const visible = (id: string) => byId.has(id) && !byId.get(id)?.hidden;
  for (let d = 1; d < ids.length; d++) {
    for (const j of [at + d, at - d]) {
      if (j >= 0 && j < ids.length && visible(ids[j])) return descend(ids[j], byId, lastChild);
    }
  }
  return i > 0 ? positionOf(steps[i - 1]) : null;
}

// The overview of a large graph: communities found by Louvain
// (graphology-communities-louvain) and drawn, while the camera is zoomed
// out, as labelled clusters at their centroids; zooming in opens them (the
// cluster labels give way to the nodes' own). The graph Louvain reads is the
// projects, each split by Louvain over its edges plus a weaker edge from
// each session to the next session of the project in time: project and time
// are the outer structure, a project's sessions of one period fall
// together. Issue 10, section 5.

import { baseName } from '../format';
import Graph from 'graphology';
import louvain from 'graphology-communities-louvain';
import type { GraphNode } from '../types';

/** Graphs with at least this many nodes get the overview. */
export const OVERVIEW_MIN_NODES = 1500;
/** Above this camera ratio (zoomed out) clusters are drawn closed. */
export const OPEN_RATIO = 0.45;
/**
 * Louvain's resolution, well below 1: a project's sessions chained in time
 * are a long path, which modularity at 1 cuts into many short pieces; at
 * 0.03 a project of 1,000 nodes falls into a handful of periods (12,000
 * synthetic nodes in 12 projects: 77 clusters, not 290).
 */
const RESOLUTION = 0.03;
/** The weight of the edge from a session to the next one of its project. */
const NEXT_SESSION_WEIGHT = 0.5;

export interface Community {
  key: number;
  /** Node ids, the most important first. */
  members: string[];
  /** What the cluster is: its project, its period. */
  title: string;
  /** Its most important node's label. */
  lead: string;
}

/** A node's importance for labels: its size in entries, then tokens. */
export const importance = (n: GraphNode) => n.entries * 1e9 + n.tokens;

/** A small deterministic PRNG (mulberry32), so the same graph gives the same clusters. */
function rng(seed: number) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Communities of nodes (edges: source and target ids), the largest first.
 * Projects are the outer structure: each project's nodes are split by
 * Louvain over the edges within the project and the chain of its sessions in
 * time (the last segment of one to the first of the next); an edge between
 * projects joins no cluster. A cluster's title names its project by
 * projectName (the library's names; the last path element by default).
 */
export function findCommunities(
  nodes: GraphNode[],
  edges: { source: string; target: string }[],
  projectName: (path: string) => string = baseName,
): Community[] {
  const projectOf = new Map(nodes.map((n) => [n.id, n.project]));
  const byProject = new Map<string, GraphNode[]>();
  for (const n of nodes) {
    const p = byProject.get(n.project);
    if (p) p.push(n);
    else byProject.set(n.project, [n]);
  }
  const inner = new Map<string, { source: string; target: string }[]>();
  for (const e of edges) {
    const p = projectOf.get(e.source);
    if (p === undefined || p !== projectOf.get(e.target)) continue;
    const list = inner.get(p);
    if (list) list.push(e);
    else inner.set(p, [e]);
  }
  const out: Community[] = [];
  let key = 0;
  for (const [project, members] of byProject) {
    for (const group of louvainGroups(members, inner.get(project) ?? [])) out.push(community(key++, group, projectName));
  }
  return out.sort((a, b) => b.members.length - a.members.length || a.key - b.key);
}

/** Louvain over one project's nodes, their edges and its sessions' chain in time. */
function louvainGroups(nodes: GraphNode[], edges: { source: string; target: string }[]): GraphNode[][] {
  const g = new Graph<Record<string, never>, { weight: number }>({ type: 'undirected', multi: false });
  for (const n of nodes) g.addNode(n.id);
  const link = (a: string, b: string, w: number) => {
    if (a === b || !g.hasNode(a) || !g.hasNode(b)) return;
    if (g.hasEdge(a, b)) g.updateEdgeAttribute(a, b, 'weight', (x) => (x ?? 0) + w);
    else g.addEdge(a, b, { weight: w });
  };
  for (const e of edges) link(e.source, e.target, 1);
  const sessions = new Map<string, GraphNode[]>();
  for (const n of nodes) {
    const s = sessions.get(n.sessionId);
    if (s) s.push(n);
    else sessions.set(n.sessionId, [n]);
  }
  const list = [...sessions.values()];
  for (const s of list) s.sort((a, b) => a.segment - b.segment);
  list.sort((a, b) => (a[0].timestamp < b[0].timestamp ? -1 : a[0].timestamp > b[0].timestamp ? 1 : 0));
  for (let i = 1; i < list.length; i++) link(list[i - 1][list[i - 1].length - 1].id, list[i][0].id, NEXT_SESSION_WEIGHT);
  if (g.size === 0) return [nodes];
  const mapping = louvain(g, { getEdgeWeight: 'weight', rng: rng(1), resolution: RESOLUTION });
  const groups = new Map<number, GraphNode[]>();
  for (const n of nodes) {
    const c = mapping[n.id];
    const grp = groups.get(c);
    if (grp) grp.push(n);
    else groups.set(c, [n]);
  }
  return [...groups.values()];
}

function community(key: number, members: GraphNode[], projectName: (path: string) => string): Community {
  members.sort((a, b) => importance(b) - importance(a));
  let first = '';
  let last = '';
  for (const m of members) {
    if (m.timestamp && (!first || m.timestamp < first)) first = m.timestamp;
    if (m.timestamp > last) last = m.timestamp;
  }
  const days = first ? `${first.slice(0, 10)}${last.slice(0, 10) !== first.slice(0, 10) ? ` → ${last.slice(5, 10)}` : ''}` : '';
  return {
    key,
    members: members.map((m) => m.id),
    title: `${projectName(members[0].project) || 'no project'} · ${days}`,
    lead: members[0].label || members[0].type,
  };
}

/** A cluster label as placed on the canvas (viewport pixels). */
export interface ClusterLabel {
  key: number;
  x: number;
  y: number;
  title: string;
  lead: string;
  count: number;
  color: string;
}

/** Cluster colours: a few distinct hues, by community rank. */
export const CLUSTER_COLORS = ['#3b6fd8', '#e8590c', '#2b8a3e', '#ae3ec9', '#1098ad', '#f08c00', '#c2255c', '#5c7cfa', '#66a80f', '#7048e8'];

/** Boxes overlap (with a margin). */
const hit = (a: { x: number; y: number; w: number; h: number }, b: { x: number; y: number; w: number; h: number }) =>
  Math.abs(a.x - b.x) * 2 < a.w + b.w + 8 && Math.abs(a.y - b.y) * 2 < a.h + b.h + 8;

/** The centroids (graph coordinates) of the communities, null where no member has a position. */
export function centroids(communities: Community[], position: (id: string) => { x: number; y: number } | null) {
  return communities.map((c) => {
    let x = 0;
    let y = 0;
    let n = 0;
    for (const id of c.members) {
      const p = position(id);
      if (!p) continue;
      x += p.x;
      y += p.y;
      n++;
    }
    return n ? { x: x / n, y: y / n } : null;
  });
}

/**
 * The most a cluster label can take across, in pixels: its wider line (the
 * title and count, or the lead under them) at 11 px (7 px a character
 * bounds it), within the label's max-width (220 px) and its padding and
 * border (17 px).
 */
export function labelWidth(c: Pick<Community, 'title' | 'lead' | 'members'>): number {
  const chars = Math.max(c.title.length + 1 + String(c.members.length).length, c.lead.length, 12);
  return Math.min(220, 7 * chars) + 17;
}

/**
 * Places the labels of the largest clusters first at their centroids
 * (centres, in graph coordinates: see centroids; toView: graph to viewport
 * pixels), leaving out any label that would
 * overlap one placed (its box: labelWidth by 36 px) or fall outside width x height.
 */
export function placeClusterLabels(
  communities: Community[],
  centres: ({ x: number; y: number } | null)[],
  toView: (p: { x: number; y: number }) => { x: number; y: number },
  width: number,
  height: number,
  max = 40,
): ClusterLabel[] {
  const placed: { x: number; y: number; w: number; h: number }[] = [];
  const out: ClusterLabel[] = [];
  for (const [i, c] of communities.entries()) {
    if (out.length >= max || c.members.length < 3) break;
    const centre = centres[i];
    if (!centre) continue;
    const { x, y } = toView(centre);
    const box = { x, y, w: labelWidth(c), h: 36 };
    if (x < 0 || y < 0 || x > width || y > height || placed.some((p) => hit(p, box))) continue;
    placed.push(box);
    out.push({ key: c.key, x, y, title: c.title, lead: c.lead, count: c.members.length, color: CLUSTER_COLORS[i % CLUSTER_COLORS.length] });
  }
  return out;
}

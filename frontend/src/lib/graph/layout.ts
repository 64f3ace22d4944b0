// The lane layout: one horizontal lane per session, its segments left to
// right in order (x = segment index), sessions of one project next to each
// other, projects and sessions ordered by their first timestamp; many lanes
// are set in several columns. It is
// deterministic and O(n log n), so it is computed directly (10,000 nodes take
// a few milliseconds); the optional ForceAtlas2 layout runs in a web worker.

import type { GraphNode } from '../types';

export interface Lane {
  sessionId: string;
  project: string;
  /** Where the lane starts: its first segment's graph coordinates. */
  x: number;
  y: number;
  nodes: number;
}

export interface LaneLayout {
  /** Graph coordinates by node id. */
  positions: Map<string, { x: number; y: number }>;
  lanes: Lane[];
  /** Node ids lane by lane, each lane's segments in order. */
  order: string[];
  /** From one column's start to the next's (graph units). */
  columnWidth: number;
}

/**
 * The shape of a lane stack before it is cut into columns: its height in
 * one column, a column's width (graph units, COLUMN_GAP included) and how
 * many lanes it holds. A column picker (framing.ts's columnsForView) gives
 * the number of columns for it.
 */
export interface StackShape {
  height: number;
  columnWidth: number;
  lanes: number;
}

/** Distance between consecutive segments of a lane, and between lanes. */
export const SEGMENT_GAP = 1;
export const LANE_GAP = 0.6;
/** Extra space between the lanes of two projects. */
export const PROJECT_GAP = 0.5;
/** Space between columns of lanes. */
export const COLUMN_GAP = 2;
/**
 * The width/height the layout aims at: when lanes stacked in one column
 * would be much taller than that, they are set in several columns, like a
 * newspaper, so a large library fills a window instead of a thin strip.
 */
export const TARGET_ASPECT = 1.6;

type LaneNodes = { sessionId: string; project: string; first: string; nodes: GraphNode[] };

const byTime = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Lays out nodes in session lanes. Lanes go down the page (negative y, as
 * sigma's y axis points up), in columns when there are many.
 */
export function laneLayout(nodes: readonly GraphNode[], columnsFor: (s: StackShape) => number = aimedColumns): LaneLayout {
  const sessions = new Map<string, LaneNodes>();
  for (const n of nodes) {
    let s = sessions.get(n.sessionId);
    if (!s) {
      s = { sessionId: n.sessionId, project: n.project, first: n.timestamp, nodes: [] };
      sessions.set(n.sessionId, s);
    }
    s.nodes.push(n);
    if (n.timestamp && (!s.first || n.timestamp < s.first)) s.first = n.timestamp;
  }

  const projects = new Map<string, { first: string; sessions: LaneNodes[] }>();
  for (const s of sessions.values()) {
    let p = projects.get(s.project);
    if (!p) {
      p = { first: s.first, sessions: [] };
      projects.set(s.project, p);
    }
    p.sessions.push(s);
    if (s.first && (!p.first || s.first < p.first)) p.first = s.first;
  }

  const orderedProjects = [...projects.entries()].sort(
    ([pa, a], [pb, b]) => byTime(a.first, b.first) || byTime(pa, pb),
  );

  // Stack lanes in order (y going down), then cut the stack into columns.
  type Stacked = { s: LaneNodes; project: string; y: number };
  const stacked: Stacked[] = [];
  let y = 0;
  let longest = 1;
  orderedProjects.forEach(([project, p], pi) => {
    if (pi > 0) y += PROJECT_GAP;
    p.sessions.sort((a, b) => byTime(a.first, b.first) || byTime(a.sessionId, b.sessionId));
    for (const s of p.sessions) {
      s.nodes.sort((a, b) => a.segment - b.segment || byTime(a.timestamp, b.timestamp) || byTime(a.id, b.id));
      stacked.push({ s, project, y });
      longest = Math.max(longest, s.nodes.length);
      y += LANE_GAP;
    }
  });
  const height = Math.max(LANE_GAP, y);
  const colWidth = (longest - 1) * SEGMENT_GAP + COLUMN_GAP;
  const columns = Math.max(1, Math.min(stacked.length, Math.round(columnsFor({ height, columnWidth: colWidth, lanes: stacked.length }))));
  const perColumn = height / columns;

  const positions = new Map<string, { x: number; y: number }>();
  const lanes: Lane[] = [];
  const order: string[] = [];
  let col = 0;
  let colTop = 0;
  for (const { s, project, y: ly } of stacked) {
    // A lane goes to the next column once this one is full.
    if (col < columns - 1 && ly - colTop >= perColumn) {
      col++;
      colTop = ly;
    }
    const x0 = col * colWidth;
    const yy = colTop - ly;
    s.nodes.forEach((n, i) => {
      positions.set(n.id, { x: x0 + i * SEGMENT_GAP, y: yy });
      order.push(n.id);
    });
    lanes.push({ sessionId: s.sessionId, project, x: x0, y: yy, nodes: s.nodes.length });
  }
  return { positions, lanes, order, columnWidth: colWidth };
}

/** The columns that give a stack about TARGET_ASPECT: only when one column would be at least twice too tall. */
function aimedColumns({ height, columnWidth }: StackShape): number {
  const ideal = Math.sqrt((TARGET_ASPECT * height) / columnWidth);
  return ideal < 2 ? 1 : ideal;
}

/**
 * The ids of a lane layout's nodes in reading order: lane by lane, as the
 * lanes are stacked, each lane's segments left to right (the graph's node
 * list, and where the keyboard starts).
 */
export function laneOrder(l: LaneLayout): string[] {
  return l.order;
}

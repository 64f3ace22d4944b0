// How the lanes fill the view at the camera's rest: stretched apart when
// the view is taller than they need, and a small graph kept from being
// blown up. Pure: graph coordinates and view pixels in, numbers out.

import { COLUMN_GAP, LANE_GAP, type StackShape } from './layout';

/** Room around the graph at rest: a node and its ring stay clear of the zoom buttons (44 px from the edge). */
export const STAGE_PADDING = 64;
/** Largest drawing scale of the lanes at the camera's rest: pixels per segment step. */
export const MAX_LANE_SCALE = 210;
/** Lane spacing the lanes get when the view has the height for it (pixels). */
export const LANE_PIXELS = 78;
/**
 * Lane spacing a lane's title needs (pixels): the title over the lane's
 * line, clear of the lane above's nodes, labels and knowledge items.
 */
export const LANE_ROOM = 64;
/** The narrowest a column of lanes is made for its titles (pixels), unless there is one column. */
export const MIN_COLUMN_PIXELS = 200;

export interface Bounds {
  minX: number;
  maxX: number;
  minY: number;
  maxY: number;
}

/** The bounding box of points (Infinity and -Infinity when there are none). */
export function boundsOf(points: Iterable<{ x: number; y: number }>): Bounds {
  let minX = Infinity, maxX = -Infinity, minY = Infinity, maxY = -Infinity;
  for (const p of points) {
    if (p.x < minX) minX = p.x;
    if (p.x > maxX) maxX = p.x;
    if (p.y < minY) minY = p.y;
    if (p.y > maxY) maxY = p.y;
  }
  return { minX, maxX, minY, maxY };
}

/** The drawing area of a view width x height pixels, inside the stage padding. */
function stage(width: number, height: number) {
  return { W: Math.max(50, width - 2 * STAGE_PADDING), H: Math.max(50, height - 2 * STAGE_PADDING) };
}

/**
 * The vertical stretch of a lane layout with bounds b in a view width x
 * height: a wide, short lane graph (long sessions, few of them) is
 * stretched so that lanes get up to LANE_PIXELS apart instead of huddling
 * in the middle of the view, never beyond the view's height. 1 = none.
 */
export function laneStretch(b: Bounds, width: number, height: number): number {
  const { W, H } = stage(width, height);
  const gw = b.maxX - b.minX;
  const gh = b.maxY - b.minY;
  const scale = Math.min(MAX_LANE_SCALE, gw > 0 ? W / gw : Infinity, gh > 0 ? H / gh : Infinity);
  if (gh > 0 && Number.isFinite(scale) && LANE_GAP * scale < LANE_PIXELS) {
    return Math.max(1, Math.min(LANE_PIXELS / (LANE_GAP * scale), H / (gh * scale)));
  }
  return 1;
}

/**
 * The frame of the lanes at rest (sigma's custom bounding box), or null
 * for the graph's own: a graph that would be drawn more than
 * MAX_LANE_SCALE pixels per segment step gets a wider frame, centred, so
 * that it is drawn at that scale.
 */
export function restFrame(b: Bounds, width: number, height: number): { x: [number, number]; y: [number, number] } | null {
  const { W, H } = stage(width, height);
  const gw = b.maxX - b.minX;
  const gh = b.maxY - b.minY;
  const fit = Math.min(gw > 0 ? W / gw : Infinity, gh > 0 ? H / gh : Infinity);
  if (fit <= MAX_LANE_SCALE) return null;
  const bw = W / MAX_LANE_SCALE;
  const bh = H / MAX_LANE_SCALE;
  const cx = (b.minX + b.maxX) / 2;
  const cy = (b.minY + b.maxY) / 2;
  return { x: [cx - bw / 2, cx + bw / 2], y: [cy - bh / 2, cy + bh / 2] };
}

/**
 * The column picker for a view width x height pixels (laneLayout's
 * columnsFor): the fewest columns whose lanes, stretched as laneStretch
 * does, are LANE_ROOM pixels apart at rest, so that each lane has room for
 * its title, none narrower than MIN_COLUMN_PIXELS; when no number of
 * columns gives that (a large library), the number that sets them furthest
 * apart.
 */
export function columnsForView(width: number, height: number): (s: StackShape) => number {
  const { W, H } = stage(width, height);
  return ({ height: gh, columnWidth, lanes }) => {
    let best = 1;
    let bestPixels = 0;
    for (let c = 1; c <= Math.min(lanes, 400); c++) {
      // A column holds about gh / c of the stack, give or take a lane.
      const b = { minX: 0, maxX: c * columnWidth - COLUMN_GAP, minY: 0, maxY: gh / c };
      const scale = Math.min(MAX_LANE_SCALE, b.maxX > 0 ? W / b.maxX : Infinity, b.maxY > 0 ? H / b.maxY : Infinity);
      // More columns would only be narrower.
      if (c > 1 && columnWidth * scale < MIN_COLUMN_PIXELS) break;
      const pixels = LANE_GAP * scale * laneStretch(b, width, height);
      if (pixels >= LANE_ROOM) return c;
      if (pixels > bestPixels) [best, bestPixels] = [c, pixels];
    }
    return best;
  };
}

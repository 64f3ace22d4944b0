// The lanes' titles (session name and start), placed over the canvas where
// each lane begins; a lane whose start is left of the view keeps its title
// at the view's edge while the lane is still in view. A title stays within
// its column: it ends before the next column's first title.

import type Sigma from 'sigma';
import { formatDate, formatDateTime } from '../format';
import type { SessionSummary } from '../types';
import { LABEL_LEFT } from './camera';
import { SEGMENT_GAP, type Lane } from './layout';
import type { EdgeAttrs, NodeAttrs } from './model';

export interface LaneLabel {
  key: string;
  /** Where the title's box starts, view pixels: the lane's line is TITLE_RISE px below its top. */
  x: number;
  y: number;
  /** The session's name (cut with an ellipsis when the title has no room) and its start (never cut). */
  name: string;
  when: string;
  /** Widest it may be (pixels). */
  max: number;
}

/** From a title's top to its lane's line (pixels): the title's line (11 px text) and a gap over the nodes. */
export const TITLE_RISE = 27;
/** Space kept between a title and the next column's title (pixels). */
const COLUMN_MARGIN = 16;
/** About the width of one character of a title (11 px semibold), pixels. */
const CHAR_PIXELS = 7;
/** The room a title's name keeps before its start is shortened to the day, then left out (pixels). */
const NAME_ROOM = 150;
/** At most this many titles are placed (a large library has many lanes in view). */
const MAX_LABELS = 150;

/**
 * The titles of the lanes in view; columnWidth is the lane layout's
 * (graph units from one column's start to the next's).
 */
export function placeLaneLabels(
  s: Sigma<NodeAttrs, EdgeAttrs>,
  lanes: Lane[],
  columnWidth: number,
  sessionById: Map<string, SessionSummary>,
): LaneLabel[] {
  const { width, height } = s.getDimensions();
  const out: LaneLabel[] = [];
  for (const l of lanes) {
    const p = s.graphToViewport({ x: l.x, y: l.y });
    if (p.y < -20 || p.y > height + 30 || p.x > width - 40) continue;
    const end = s.graphToViewport({ x: l.x + Math.max(0, l.nodes - 1) * SEGMENT_GAP, y: l.y });
    if (end.x < LABEL_LEFT + 8) continue;
    const x = Math.max(p.x - 8, LABEL_LEFT);
    // The next column's titles start 8 px left of its first nodes.
    const next = s.graphToViewport({ x: l.x + columnWidth, y: l.y }).x - 8 - COLUMN_MARGIN;
    const ses = sessionById.get(l.sessionId);
    const name = ses?.title || ses?.name || l.sessionId.slice(0, 8);
    const max = Math.min(420, width - x - 4, next - x);
    out.push({ key: l.sessionId, x, y: p.y - TITLE_RISE, name, when: ses ? startIn(ses.timestamp, max - Math.min(NAME_ROOM, name.length * CHAR_PIXELS)) : '', max });
    if (out.length > MAX_LABELS) break;
  }
  return out;
}

/** A lane's start as its title shows it in room pixels: day and time, the day alone, or nothing. */
function startIn(iso: string, room: number): string {
  const full = formatDateTime(iso);
  if ((full.length + 3) * CHAR_PIXELS <= room) return full;
  const day = formatDate(iso);
  return (day.length + 3) * CHAR_PIXELS <= room ? day : '';
}

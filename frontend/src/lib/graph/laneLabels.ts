// The lanes' titles (session name and start), placed over the canvas where
// each lane begins; a lane whose start is left of the view keeps its title
// at the view's edge while the lane is still in view.

import type Sigma from 'sigma';
import { formatDateTime } from '../format';
import type { SessionSummary } from '../types';
import { LABEL_LEFT } from './camera';
import { SEGMENT_GAP, type Lane } from './layout';
import type { EdgeAttrs, NodeAttrs } from './model';

export interface LaneLabel {
  key: string;
  /** Where the title starts, view pixels: the lane's line is 27 px below. */
  x: number;
  y: number;
  text: string;
  /** Widest it may be (pixels). */
  max: number;
}

/** At most this many titles are placed (a large library has many lanes in view). */
const MAX_LABELS = 150;

/** The titles of the lanes in view. */
export function placeLaneLabels(
  s: Sigma<NodeAttrs, EdgeAttrs>,
  lanes: Lane[],
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
    const ses = sessionById.get(l.sessionId);
    const name = ses?.title || ses?.name || l.sessionId.slice(0, 8);
    const when = ses ? formatDateTime(ses.timestamp) : '';
    out.push({ key: l.sessionId, x, y: p.y, text: when ? `${name} · ${when}` : name, max: Math.min(420, width - x - 4) });
    if (out.length > MAX_LABELS) break;
  }
  return out;
}

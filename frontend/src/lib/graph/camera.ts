// Bringing a node into view with as little camera movement as it takes.

import type Sigma from 'sigma';
import type { EdgeAttrs, Model, NodeAttrs } from './model';
import { motionMs } from './motion';

/** Pixels a node shown by centerOn keeps from the view's edges. */
const VIEW_MARGIN = 48;
/** The zoom buttons' corner (bottom right, with room for a node's ring), pixels. */
const ZOOM_BOX = { w: 64, h: 124 };
/** Where a lane label starts at the least: inside the view, never cut off on the left. */
export const LABEL_LEFT = 4;

/** The first segment of node id's lane: the lane's node furthest left. */
function laneStart(model: Model, id: string): string | null {
  const sid = model.getNodeAttribute(id, 'sessionId');
  let best: string | null = null;
  let bx = Infinity;
  model.forEachNode((n, a) => {
    if (a.sessionId === sid && a.x < bx) {
      bx = a.x;
      best = n;
    }
  });
  return best;
}

/**
 * Brings node id into view. A node already in view stays where it is; a
 * large graph is zoomed in to it (zoom). Otherwise the camera moves as
 * little as it can: the node centred, but in lanes shifted so that its
 * lane's start, and the lane's label, stay in view when the node still
 * fits.
 */
export function centerOn(s: Sigma<NodeAttrs, EdgeAttrs>, model: Model, id: string, zoom: boolean, lanes: boolean) {
  if (!model.hasNode(id)) return;
  const d = s.getNodeDisplayData(id);
  if (!d) return;
  const cam = s.getCamera();
  const ratio = zoom ? Math.min(cam.ratio, model.order > 60 ? 0.3 : 1) : cam.ratio;
  const { width, height } = s.getDimensions();
  const here = { ...cam.getState(), ratio };
  const at = (st: typeof here, p: { x: number; y: number }) => s.framedGraphToViewport(p, { cameraState: st });
  const p = at(here, d);
  const underZoom = p.x > width - ZOOM_BOX.w && p.y > height - ZOOM_BOX.h;
  if (!underZoom && p.x >= VIEW_MARGIN && p.x <= width - VIEW_MARGIN && p.y >= VIEW_MARGIN && p.y <= height - VIEW_MARGIN) {
    if (ratio !== cam.ratio) cam.animate(here, { duration: motionMs(450) });
    return;
  }
  const state = { ...here, x: d.x, y: d.y };
  const first = lanes ? laneStart(model, id) : null;
  const fd = first ? s.getNodeDisplayData(first) : null;
  if (fd) {
    const start = at(state, fd);
    const node = at(state, d);
    // Move the view left (the graph right) until the lane's start has room for its label.
    const room = Math.min(LABEL_LEFT + 8 - start.x, width - VIEW_MARGIN - node.x);
    if (room > 0) {
      const a = s.viewportToFramedGraph({ x: 0, y: 0 }, { cameraState: state });
      const b = s.viewportToFramedGraph({ x: room, y: 0 }, { cameraState: state });
      state.x -= b.x - a.x;
      state.y -= b.y - a.y;
    }
  }
  cam.animate(state, { duration: motionMs(450) });
}

// Drawing on sigma's canvas: the ring of a hovered or selected node and the
// node labels, cut to the room they have, with a halo so they read over
// edges.

import type { NodeHoverDrawingFunction, NodeLabelDrawingFunction } from 'sigma/rendering';
import { TITLE_RISE } from './laneLabels';
import type { EdgeAttrs, NodeAttrs } from './model';

/** A theme colour (a CSS variable of app.css). */
export function cssVar(name: string, fallback: string) {
  const v = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return v || fallback;
}

/** Cuts text to maxWidth pixels with an ellipsis; "" when too little is left. */
export function fitText(ctx: CanvasRenderingContext2D, text: string, maxWidth: number): string {
  if (ctx.measureText(text).width <= maxWidth) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (ctx.measureText(`${text.slice(0, mid)}…`).width <= maxWidth) lo = mid;
    else hi = mid - 1;
  }
  return lo < 4 ? '' : `${text.slice(0, lo).trimEnd()}…`;
}

// Hovered and selected nodes get a ring; their text is in the tooltip and the panel.
export const drawHover: NodeHoverDrawingFunction<NodeAttrs, EdgeAttrs> = (ctx, data) => {
  ctx.beginPath();
  ctx.arc(data.x, data.y, data.size + 4, 0, Math.PI * 2);
  ctx.lineWidth = 3;
  ctx.strokeStyle = cssVar('--accent', '#3b6fd8');
  ctx.stroke();
};

/** The height a segment's row of knowledge items takes under its label (pixels, a margin included). */
const KNOWLEDGE_ROW = 12;

/** What labels are drawn with, measured as the camera moves (GraphRenderer). */
export interface LabelRoom {
  /** The lane layout is drawn (labels under their node). */
  lanes: boolean;
  /** Pixels between two segments of a lane. */
  segment: number;
  /** Pixels between two lanes. */
  lane: number;
  /** The halo's colour: the graph's background. */
  halo: string;
}

/**
 * The label drawing function. In lanes labels sit under their node, as wide
 * as a segment step (none when the next lane's title is too near);
 * elsewhere to the right of it.
 */
export function labelDrawer(room: LabelRoom): NodeLabelDrawingFunction<NodeAttrs, EdgeAttrs> {
  return (ctx, data, settings) => {
    if (!data.label) return;
    const size = settings.labelSize;
    ctx.font = `${settings.labelWeight} ${size}px ${settings.labelFont}`;
    let text: string;
    let x: number;
    let y: number;
    if (room.lanes) {
      // Below the node (its text's bottom a quarter of its size under the
      // baseline), over the row of the segment's knowledge items, clear of
      // the next lane's title, which rises TITLE_RISE px.
      if (data.size + size * 1.25 + 3 + KNOWLEDGE_ROW > room.lane - TITLE_RISE) return;
      text = fitText(ctx, data.label, room.segment - 12);
      if (!text) return;
      x = data.x - Math.min(data.size, 6);
      y = data.y + data.size + size + 3;
    } else {
      text = fitText(ctx, data.label, 260);
      if (!text) return;
      x = data.x + data.size + 4;
      y = data.y + size / 3;
    }
    ctx.lineWidth = 4;
    ctx.lineJoin = 'round';
    ctx.strokeStyle = room.halo;
    ctx.strokeText(text, x, y);
    ctx.fillStyle = settings.labelColor.color ?? '#222';
    ctx.fillText(text, x, y);
  };
}

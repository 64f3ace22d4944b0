import { describe, expect, it } from 'vitest';
import { LANE_PIXELS, MAX_LANE_SCALE, MIN_COLUMN_PIXELS, STAGE_PADDING, boundsOf, columnsForView, laneStretch, restFrame } from './framing';
import { LANE_GAP, laneLayout } from './layout';
import { tipAt } from './hover.svelte';
import type { GraphNode } from '../types';

const node = (id: string, sessionId: string, segment: number): GraphNode => ({
  id, sessionId, segment, timestamp: `2025-01-0${sessionId.length}T00:0${segment % 10}:00Z`, project: '/p', label: id, type: 'coding', outcome: 'success', cost: 0, tokens: 0, entries: 1,
});

/** Two sessions of n segments each, as the lane layout places them. */
const twoLanes = (n: number) => {
  const nodes: GraphNode[] = [];
  for (let i = 0; i < n; i++) nodes.push(node(`a${i}`, 'A', i), node(`b${i}`, 'BB', i));
  return boundsOf(laneLayout(nodes).positions.values());
};

/** Pixels per graph unit at rest for bounds b in a view width x height (sigma fits the graph to the stage). */
const scaleOf = (b: ReturnType<typeof boundsOf>, width: number, height: number, k: number) =>
  Math.min(MAX_LANE_SCALE, (width - 2 * STAGE_PADDING) / (b.maxX - b.minX), (height - 2 * STAGE_PADDING) / ((b.maxY - b.minY) * k));

describe('laneStretch', () => {
  it('leaves short lanes that are far enough apart as they are', () => {
    expect(laneStretch(twoLanes(4), 1000, 700)).toBe(1);
  });

  it('stretches two long lanes until they are LANE_PIXELS apart', () => {
    const b = twoLanes(41);
    const k = laneStretch(b, 1000, 700);
    expect(k).toBeGreaterThan(1);
    // The stretch is applied to y only, so the scale at rest stays the width's.
    expect(LANE_GAP * k * scaleOf(b, 1000, 700, 1)).toBeCloseTo(LANE_PIXELS);
  });

  it('never stretches lanes beyond the view', () => {
    const b = twoLanes(41);
    const k = laneStretch(b, 1000, 200);
    expect(k).toBeGreaterThan(1);
    expect((b.maxY - b.minY) * k * scaleOf(b, 1000, 200, 1)).toBeLessThanOrEqual(200 - 2 * STAGE_PADDING + 1e-9);
  });

  it('leaves one lane, and no lane, alone', () => {
    expect(laneStretch(boundsOf([{ x: 0, y: 0 }, { x: 9, y: 0 }]), 1000, 700)).toBe(1);
    expect(laneStretch(boundsOf([]), 1000, 700)).toBe(1);
  });
});

describe('restFrame', () => {
  it('keeps a graph that fills the view at most MAX_LANE_SCALE as it is', () => {
    expect(restFrame(twoLanes(41), 1000, 700)).toBeNull();
  });

  it('widens the frame of a small graph, centred, to draw it at MAX_LANE_SCALE', () => {
    const b = twoLanes(2);
    const f = restFrame(b, 1000, 700)!;
    expect(f).not.toBeNull();
    expect((1000 - 2 * STAGE_PADDING) / (f.x[1] - f.x[0])).toBeCloseTo(MAX_LANE_SCALE);
    expect((700 - 2 * STAGE_PADDING) / (f.y[1] - f.y[0])).toBeCloseTo(MAX_LANE_SCALE);
    expect((f.x[0] + f.x[1]) / 2).toBeCloseTo((b.minX + b.maxX) / 2);
    expect((f.y[0] + f.y[1]) / 2).toBeCloseTo((b.minY + b.maxY) / 2);
  });

  it('frames a single node', () => {
    const f = restFrame(boundsOf([{ x: 3, y: -1 }]), 1000, 700)!;
    expect((f.x[0] + f.x[1]) / 2).toBe(3);
    expect((f.y[0] + f.y[1]) / 2).toBe(-1);
  });
});

describe('tipAt', () => {
  it('puts a tooltip past the point, or before it when it would not fit', () => {
    expect(tipAt(100, 1000, 390, 374, 14)).toBe(114);
    expect(tipAt(800, 1000, 390, 374, 14)).toBe(426);
    expect(tipAt(200, 300, 390, 374, 14)).toBe(4);
  });
});

describe('columnsForView', () => {
  // The 19 real sessions of the repository (app/samples, the Claude Code
  // and Codex testdata) and some of one project each: 25 lanes in 7
  // projects, the longest of 5 segments.
  const library = { height: 25 * LANE_GAP + 6 * 0.5, columnWidth: 4 + 2, lanes: 25 };
  for (const [w, h] of [[985, 805], [756, 674]]) {
    it(`gives each lane room for its title, in columns wide enough for one (${w}x${h})`, () => {
      const c = columnsForView(w, h)(library);
      const W = w - 2 * STAGE_PADDING;
      const H = h - 2 * STAGE_PADDING;
      const scale = Math.min(MAX_LANE_SCALE, W / (c * library.columnWidth - 2), (H * c) / library.height);
      expect(c).toBeGreaterThan(1);
      expect(library.columnWidth * scale).toBeGreaterThanOrEqual(MIN_COLUMN_PIXELS);
      // Lanes stretched to the view's height: at least the 44 px a title needs.
      expect((H * c) / library.height * LANE_GAP).toBeGreaterThanOrEqual(44);
    });
  }
  it('keeps a few short lanes in one column', () => {
    expect(columnsForView(1000, 700)({ height: 3 * LANE_GAP, columnWidth: 5, lanes: 3 })).toBe(1);
  });
});

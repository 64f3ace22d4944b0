// Walking the graph with the arrow keys: from the node in focus to the node
// that lies the way pressed, along an edge when one goes that way.

export type Direction = 'left' | 'right' | 'up' | 'down';

/** The arrow keys and their directions on the screen. */
export const ARROWS: Record<string, Direction> = {
  ArrowLeft: 'left',
  ArrowRight: 'right',
  ArrowUp: 'up',
  ArrowDown: 'down',
};

const UNIT: Record<Direction, { x: number; y: number }> = {
  left: { x: -1, y: 0 },
  right: { x: 1, y: 0 },
  up: { x: 0, y: -1 },
  down: { x: 0, y: 1 },
};

/** How far off the direction pressed a node may lie: 60 degrees either side. */
const MIN_COS = 0.5;

/**
 * The node to move to from node `from` when dir is pressed, or null. Among
 * the nodes lying within 60 degrees of dir on the screen (pos: screen
 * coordinates, y down), a node connected to `from` (neighbours) wins; else
 * the nearest of all (`all`). Nearer and straighter is better: the score is
 * the distance times (2 - cos of the angle off dir).
 */
export function stepFrom(
  from: string,
  dir: Direction,
  pos: (id: string) => { x: number; y: number } | null,
  neighbours: (id: string) => Iterable<string>,
  all: Iterable<string>,
): string | null {
  const p = pos(from);
  if (!p) return null;
  const u = UNIT[dir];
  const best = (ids: Iterable<string>) => {
    let pick: string | null = null;
    let score = Infinity;
    for (const id of ids) {
      if (id === from) continue;
      const q = pos(id);
      if (!q) continue;
      const dx = q.x - p.x;
      const dy = q.y - p.y;
      const d = Math.hypot(dx, dy);
      if (d < 0.5) continue;
      const cos = (dx * u.x + dy * u.y) / d;
      if (cos < MIN_COS) continue;
      const s = d * (2 - cos);
      if (s < score) {
        score = s;
        pick = id;
      }
    }
    return pick;
  };
  return best(neighbours(from)) ?? best(all);
}

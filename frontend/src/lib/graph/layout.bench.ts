// `make bench`: the lane layout of 10,000 nodes against the baseline of one
// sort of the same nodes by session and time, in the same run (vitest
// prints each one's operations per second and the ratio).
import { bench, describe } from 'vitest';
import { laneLayout } from './layout';
import { syntheticGraph } from './synthetic';

const nodes = syntheticGraph(10_000).nodes!;

describe('10,000 nodes', () => {
  bench('laneLayout', () => {
    laneLayout(nodes);
  });
  bench('baseline: sort by session and time', () => {
    [...nodes].sort((a, b) => a.sessionId.localeCompare(b.sessionId) || a.timestamp.localeCompare(b.timestamp));
  });
});

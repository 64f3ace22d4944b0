// Words for the steps of a reasoning graph's history (the slider's label,
// the list of steps).

import type { ReasoningStepInfo } from '../types';

/** n and the word, singular for one: "1 step", "3 steps". */
export const counted = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const plural = counted;

/** Turn ids as a range: "turns 4–5", "turn 3", "". */
export function turnsText(ids: readonly number[]): string {
  if (!ids.length) return '';
  if (ids.length === 1) return `turn ${ids[0]}`;
  const sorted = [...ids].sort((a, b) => a - b);
  const contiguous = sorted.every((t, i) => i === 0 || t === sorted[i - 1] + 1);
  return contiguous ? `turns ${sorted[0]}–${sorted[sorted.length - 1]}` : `turns ${sorted.join(', ')}`;
}

/** One line saying what an operation did. */
export function stepLabel(s: ReasoningStepInfo): string {
  switch (s.kind) {
    case 'init':
      return 'init: the task';
    case 'patch': {
      const parts = [];
      if (s.nodesAdded.length) parts.push(`+${plural(s.nodesAdded.length, 'node')}`);
      if (s.edgesAdded) parts.push(`+${plural(s.edgesAdded, 'edge')}`);
      const turns = turnsText(s.turnIds);
      return `patch: ${parts.length ? parts.join(', ') : 'nothing added'}${turns ? ` · ${turns}` : ''}`;
    }
    case 'flush':
      return `flush node ${s.nodesChanged.join(', ')}${s.rationale ? ` · ${s.rationale}` : ''}`;
    case 'fold': {
      const into = s.nodesAdded[0];
      const rerouted = s.edgesRerouted ? `, ${plural(s.edgesRerouted, 'edge')} re-routed` : '';
      return `fold ${plural(s.nodesChanged.length, 'node')} into ${into}${rerouted}${s.rationale ? ` · ${s.rationale}` : ''}`;
    }
  }
  return s.kind;
}

/** What the graph holds at a step: its nodes, by kind, by state, and its edges. */
export interface StepCounts {
  nodes: number;
  /** "6 evidence, 2 subtask, 1 task": kinds in alphabetical order. */
  kinds: string;
  edges: number;
  flushed: number;
  folded: number;
}

/** The counts of the nodes that exist at a step (states: their state then), kinds from the graph now. */
export function countsAt(kinds: ReadonlyMap<number, string>, states: ReadonlyMap<number, string>, edges: number): StepCounts {
  const byKind = new Map<string, number>();
  let flushed = 0;
  let folded = 0;
  for (const [id, state] of states) {
    const k = kinds.get(id) ?? 'other';
    byKind.set(k, (byKind.get(k) ?? 0) + 1);
    if (state === 'flushed') flushed++;
    else if (state === 'folded') folded++;
  }
  const text = [...byKind]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, n]) => `${n} ${k}`)
    .join(', ');
  return { nodes: states.size, kinds: text, edges, flushed, folded };
}

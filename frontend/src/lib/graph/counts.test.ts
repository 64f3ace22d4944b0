import { describe, expect, it } from 'vitest';
import type { GraphData, GraphNode } from '../types';
import { visibleCounts } from './counts';

const node = (id: string, type: string): GraphNode => ({
  id, sessionId: 's', segment: 0, timestamp: '', project: '/p', label: id, type, outcome: '', cost: 0, tokens: 0, entries: 1,
});
const data: GraphData = {
  analysing: 0,
  nodes: [node('a', 'coding'), node('b', 'coding'), node('c', 'debugging'), node('d', 'qa')],
  edges: [
    { id: 'ab', source: 'a', target: 'b', type: 'continuation', confidence: 1, createdBy: 'boundary' },
    { id: 'bc', source: 'b', target: 'c', type: 'resume', confidence: 1, createdBy: 'boundary' },
    { id: 'cd', source: 'c', target: 'd', type: 'continuation', confidence: 1, createdBy: 'boundary' },
    { id: 'ax', source: 'a', target: 'x', type: 'semantic', confidence: 1, createdBy: 'boundary' }, // x is not drawn
    { id: 'ab', source: 'a', target: 'b', type: 'continuation', confidence: 1, createdBy: 'boundary' }, // the same edge again
  ],
};

describe('visibleCounts: what the graph draws', () => {
  it('counts only the focused neighbourhood in focus mode', () => {
    expect(visibleCounts(data, new Set(), new Set(), new Set(['b', 'c']))).toEqual({ nodes: 2, edges: 1 });
  });
  it('counts drawn nodes and edges only', () => {
    expect(visibleCounts(data, new Set(), new Set())).toEqual({ nodes: 4, edges: 3 });
  });
  it('leaves out the edges of a hidden edge type', () => {
    expect(visibleCounts(data, new Set(), new Set(['continuation']))).toEqual({ nodes: 4, edges: 1 });
  });
  it('leaves out the nodes of a hidden node type and the edges touching them', () => {
    expect(visibleCounts(data, new Set(['debugging']), new Set())).toEqual({ nodes: 3, edges: 1 });
    expect(visibleCounts(data, new Set(['debugging']), new Set(['continuation']))).toEqual({ nodes: 3, edges: 0 });
  });
  it('takes empty data', () => {
    expect(visibleCounts({ nodes: [], edges: [], analysing: 0 }, new Set(), new Set())).toEqual({ nodes: 0, edges: 0 });
  });
});

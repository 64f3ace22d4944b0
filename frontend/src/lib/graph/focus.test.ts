import { describe, expect, it } from 'vitest';
import { neighbourhood } from './focus';
import type { GraphEdge } from '../types';

const e = (source: string, target: string, type = 'RELATES_TO'): GraphEdge =>
  ({ id: `${source}-${target}`, source, target, type, confidence: 1, createdBy: 'offline' }) as GraphEdge;

// a - b - c - d - e in a chain (b->a points backwards), and x alone.
const edges = [e('b', 'a'), e('b', 'c', 'continuation'), e('c', 'd'), e('d', 'e')];

describe('focus neighbourhood', () => {
  it('keeps the node and what lies within the depth, both edge directions', () => {
    expect([...neighbourhood(edges, 'c', 1)].sort()).toEqual(['b', 'c', 'd']);
    expect([...neighbourhood(edges, 'c', 2)].sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect([...neighbourhood(edges, 'a', 3)].sort()).toEqual(['a', 'b', 'c', 'd']);
  });
  it('does not walk hidden edge types, and a lone node is its own neighbourhood', () => {
    expect([...neighbourhood(edges, 'c', 3, new Set(['continuation']))].sort()).toEqual(['c', 'd', 'e']);
    expect([...neighbourhood(edges, 'x', 2)]).toEqual(['x']);
  });
});

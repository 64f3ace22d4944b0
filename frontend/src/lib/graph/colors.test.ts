import { describe, expect, it } from 'vitest';
import { EDGE_TYPES, NODE_TYPES, RELATION_TYPES, edgeColor, edgeStyle, nodeColor, orderTypes } from './colors';

describe('colours', () => {
  it('gives every node type its own colour', () => {
    const colours = NODE_TYPES.map(nodeColor);
    expect(new Set(colours).size).toBe(NODE_TYPES.length);
    for (const c of colours) expect(c).toMatch(/^#[0-9a-f]{6}$/);
  });
  it('gives every edge type its own colour, continuation straight and the rest curved', () => {
    expect(new Set(EDGE_TYPES.map((t) => edgeStyle(t).color)).size).toBe(EDGE_TYPES.length);
    expect(edgeStyle('continuation').program).toBe('arrow');
    expect(edgeStyle('branch').program).toBe('curved');
  });
  it('is stable for unknown types', () => {
    expect(nodeColor('made-up')).toBe(nodeColor('made-up'));
    expect(edgeStyle('made-up').color).toMatch(/^#[0-9a-f]{6}$/);
  });
  it('orders known types first', () => {
    expect(orderTypes(['zeta', 'qa', 'coding', 'alpha'], NODE_TYPES)).toEqual(['coding', 'qa', 'alpha', 'zeta']);
  });
});

describe('relations', () => {
  it('draws confidence as opacity: sure edges whole, weak ones faint but visible', () => {
    expect(edgeColor('RELATES_TO', 1)).toBe(edgeStyle('RELATES_TO').color);
    expect(edgeColor('RELATES_TO', undefined)).toBe(edgeStyle('RELATES_TO').color);
    const alpha = (c: string) => parseInt(c.slice(7), 16);
    expect(alpha(edgeColor('RELATES_TO', 0))).toBe(51);
    expect(alpha(edgeColor('RELATES_TO', 0.5))).toBeGreaterThan(alpha(edgeColor('RELATES_TO', 0.25)));
    expect(edgeColor('RELATES_TO', 7)).toBe(edgeStyle('RELATES_TO').color);
  });
  it('lists every relation of the vocabulary among the edge types', () => {
    for (const r of RELATION_TYPES) expect(EDGE_TYPES).toContain(r);
  });
});

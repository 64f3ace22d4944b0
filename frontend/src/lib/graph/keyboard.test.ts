import { describe, expect, it } from 'vitest';
import { stepFrom } from './keyboard';

// Screen positions (y down) of a small lane graph:
//   a0 — a1 — a2       lane A
//   b0 — b1            lane B, b0 linked to a1 (a fork)
const at = new Map([
  ['a0', { x: 0, y: 0 }], ['a1', { x: 100, y: 0 }], ['a2', { x: 200, y: 0 }],
  ['b0', { x: 0, y: 80 }], ['b1', { x: 100, y: 80 }],
]);
const links = new Map([
  ['a0', ['a1']], ['a1', ['a0', 'a2', 'b0']], ['a2', ['a1']], ['b0', ['a1', 'b1']], ['b1', ['b0']],
]);
const step = (from: string, dir: 'left' | 'right' | 'up' | 'down') => stepFrom(from, dir, (id) => at.get(id) ?? null, (id) => links.get(id) ?? [], [...at.keys()]);

describe('stepFrom: arrow keys in the graph', () => {
  it('follows an edge in the direction pressed', () => {
    expect(step('a0', 'right')).toBe('a1');
    expect(step('a1', 'right')).toBe('a2');
    expect(step('a2', 'left')).toBe('a1');
    expect(step('b1', 'left')).toBe('b0');
  });
  it('prefers the connected node nearest the direction', () => {
    // From a1 down-left to b0 (linked), not straight down to b1 (not linked).
    expect(step('a1', 'down')).toBe('b0');
    expect(step('b0', 'up')).toBe('a1');
  });
  it('without a connected node that way, goes to the nearest node that way', () => {
    expect(step('a0', 'down')).toBe('b0');
    expect(step('b1', 'up')).toBe('a1');
  });
  it('stays where nothing lies that way', () => {
    expect(step('a0', 'left')).toBeNull();
    expect(step('a2', 'right')).toBeNull();
    expect(step('a0', 'up')).toBeNull();
  });
});

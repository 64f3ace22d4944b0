import { describe, expect, it } from 'vitest';
import type { GraphNode } from '../types';
import { isKnowledgeKind, knowledgeColor, placeKnowledge } from './knowledgeNodes';

const node = (id: string, segmentNodeId: string, timestamp = '2026-01-01T00:00:00Z'): GraphNode => ({
  id, label: id, type: 'decision', outcome: '', sessionId: 's', project: 'p', segment: 0, timestamp, cost: 0, tokens: 0, entries: 0,
  knowledge: { kind: 'decision', title: id, status: 'active', createdBy: 'offline', confidence: 0.6, segmentNodeId },
});

describe('knowledge nodes', () => {
  it('sit in a row under their segment, in time order, and loose ones under the lowest lane', () => {
    const pos = new Map([['seg', { x: 3, y: -1.2 }], ['other', { x: 0, y: -2.4 }]]);
    const n = placeKnowledge([node('b', 'seg', '2026-01-02T00:00:00Z'), node('a', 'seg'), node('c', ''), { ...node('z', 'seg'), knowledge: undefined }], pos);
    expect(n).toBe(3);
    const a = pos.get('a')!, b = pos.get('b')!, c = pos.get('c')!;
    expect(a.y).toBeLessThan(-1.2);
    expect(a.y).toBeGreaterThan(-1.8); // above the next lane (LANE_GAP 0.6)
    expect(a.y).toBe(b.y);
    expect(a.x).toBeLessThan(b.x);
    expect((a.x + b.x) / 2).toBeCloseTo(3);
    expect(c.y).toBeLessThan(-2.4);
    expect(pos.has('z')).toBe(false);
  });
  it('have a colour per kind, none for segment types', () => {
    expect(isKnowledgeKind('projectFact')).toBe(true);
    expect(isKnowledgeKind('coding')).toBe(false);
    expect(knowledgeColor('decision')).not.toBe(knowledgeColor('question'));
    expect(knowledgeColor('coding')).toBeUndefined();
  });
});

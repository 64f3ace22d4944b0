import { describe, expect, it } from 'vitest';
import { describeEdge } from './edges';

describe('describeEdge: what an edge tooltip says', () => {
  it('names the type and the boundary with its details', () => {
    const d = describeEdge({ id: 'e', source: 'a', target: 'b', type: 'resume', metadata: { boundaries: ['resume'], gapMinutes: 28.1, previousEntryId: 'x' } });
    expect(d.type).toBe('resume');
    expect(d.boundary).toBe('Boundary: resume');
    expect(d.details).toContain('28 min gap');
  });
  it('lists several boundaries, and what a compaction kept', () => {
    const d = describeEdge({
      id: 'e', source: 'a', target: 'b', type: 'compaction',
      metadata: { boundaries: ['compaction', 'resume'], gapMinutes: 14.9, tokensBefore: 131140, summary: '# long' },
    });
    expect(d.boundary).toBe('Boundaries: compaction, resume');
    expect(d.details).toContain('131k tokens before');
    expect(d.details).toContain('15 min gap');
  });
  it('says so for an edge that is no boundary', () => {
    const d = describeEdge({ id: 'e', source: 'a', target: 'b', type: 'semantic', metadata: null });
    expect(d.type).toBe('semantic');
    expect(d.boundary).toBe('No boundary: a link between segments');
    const c = describeEdge({ id: 'e', source: 'a', target: 'b', type: 'tree_jump' });
    expect(c.type).toBe('tree jump');
    expect(c.boundary).toBe('Boundary: tree jump');
  });
  it('says what a link a person made is: its relation and its note', () => {
    const d = describeEdge({
      id: 'link:01J', source: 'a', target: 'b', type: 'link',
      metadata: { linkId: '01J', relation: 'LEADS_TO', label: 'led to', createdBy: 'user', note: 'the fix came from here' },
    });
    expect(d.type).toBe('link: led to');
    expect(d.boundary).toBe('Made by you (LEADS_TO)');
    expect(d.details).toEqual(['the fix came from here']);
  });
});

import { describe, expect, it } from 'vitest';
import { describeEdge } from './edges';

describe('describeEdge: what an edge tooltip says', () => {
  it('names the type and the boundary with its details', () => {
    const d = describeEdge({ id: 'e', source: 'a', target: 'b', type: 'resume', confidence: 1, createdBy: 'boundary', metadata: { boundaries: ['resume'], gapMinutes: 28.1, previousEntryId: 'x' } });
    expect(d.type).toBe('resume');
    expect(d.boundary).toBe('Boundary: resume');
    expect(d.details).toContain('28 min gap');
  });
  it('lists several boundaries, and what a compaction kept', () => {
    const d = describeEdge({
      id: 'e', source: 'a', target: 'b', type: 'compaction', confidence: 1, createdBy: 'boundary',
      metadata: { boundaries: ['compaction', 'resume'], gapMinutes: 14.9, tokensBefore: 131140, summary: '# long' },
    });
    expect(d.boundary).toBe('Boundaries: compaction, resume');
    expect(d.details).toContain('131k tokens before');
    expect(d.details).toContain('15 min gap');
  });
  it('says so for an edge that is no boundary', () => {
    const d = describeEdge({ id: 'e', source: 'a', target: 'b', type: 'semantic', confidence: 1, createdBy: 'daemon' });
    expect(d.type).toBe('semantic');
    expect(d.boundary).toBe('No boundary: a link between segments');
    const c = describeEdge({ id: 'e', source: 'a', target: 'b', type: 'tree_jump', confidence: 1, createdBy: 'boundary' });
    expect(c.type).toBe('tree jump');
    expect(c.boundary).toBe('Boundary: tree jump');
  });
  it('says what a link a person made is: its relation and its note', () => {
    const d = describeEdge({
      id: 'link:01J', source: 'a', target: 'b', type: 'link', confidence: 1, createdBy: 'user',
      metadata: { linkId: '01J', relation: 'LEADS_TO', label: 'led to', createdBy: 'user', note: 'the fix came from here' },
    });
    expect(d.type).toBe('link: led to');
    expect(d.boundary).toBe('Made by you (LEADS_TO)');
    expect(d.details).toEqual(['the fix came from here']);
  });

  it('says who made a relation across sessions, how sure, and why', () => {
    const d = describeEdge({
      id: 'e', source: 'a', target: 'b', type: 'RELATES_TO', confidence: 0.476, similarity: 0.6, createdBy: 'offline',
      rationale: 'both touch src/server.ts',
    });
    expect(d.type).toBe('relates to');
    expect(d.boundary).toBe('A relation across sessions, made by the offline rules; confidence 48%');
    expect(d.details).toEqual(['both touch src/server.ts', 'similarity 0.60']);
  });
  it('says where a knowledge node came from and who stated a supersession', () => {
    const src = describeEdge({ id: 'source:01K', source: '01K', target: 'abc', type: 'DERIVED_FROM', confidence: 1, createdBy: 'offline', rationale: 'found in this segment by the offline rule no-lets' });
    expect(src.boundary).toBe('Knowledge from this segment, by the offline rules');
    expect(src.details).toEqual(['found in this segment by the offline rule no-lets']);
    const sup = describeEdge({ id: 'supersedes:01B:01A', source: '01B', target: '01A', type: 'SUPERSEDES', confidence: 1, createdBy: 'user', rationale: '' });
    expect(sup.type).toBe('supersedes');
    expect(sup.boundary).toBe('A supersession stated by you');
  });
});

// What an edge of the graph is, in words, for its hover tooltip: its type
// and the segment boundary it crosses (from its metadata).

import type { GraphEdge } from '../types';
import { formatTokens } from '../format';

/** Edge types that are segment boundaries (backend/segment), as opposed to semantic links. */
const BOUNDARY_TYPES = new Set(['continuation', 'fork', 'branch', 'tree_jump', 'resume', 'compaction', 'handoff']);

export interface EdgeDescription {
  /** The type, words spaced ("tree jump"). */
  type: string;
  /** "Boundary: resume", "Boundaries: compaction, resume", or that it is no boundary. */
  boundary: string;
  /** Further facts: the gap, tokens before a compaction. */
  details: string[];
}

const words = (s: string) => (/^[A-Z_]+$/.test(s) ? s.toLowerCase() : s).replace(/_/g, ' ');

/** Who made an edge, in words. */
const MAKERS: Record<string, string> = {
  offline: 'the offline rules',
  model: 'the model analyzer',
  user: 'you',
  daemon: 'the analyzer',
  agent: 'an agent',
};

/** The edge type of a link a person (or a model) made between two nodes (Links). */
export const LINK_EDGE = 'link';

/** Describes edge e for a person. */
export function describeEdge(e: GraphEdge): EdgeDescription {
  const m = (e.metadata ?? {}) as Record<string, unknown>;
  if (e.type === LINK_EDGE) {
    // A link between two nodes (app's userLinkEdges): its relation, who made it, its note.
    const by = m.createdBy === 'user' || !m.createdBy ? 'you' : String(m.createdBy);
    return {
      type: `link: ${typeof m.label === 'string' && m.label ? m.label : words(String(m.relation ?? 'link')).toLowerCase()}`,
      boundary: `Made by ${by}${m.relation ? ` (${m.relation})` : ''}`,
      details: typeof m.note === 'string' && m.note ? [m.note.length > 140 ? `${m.note.slice(0, 139)}…` : m.note] : [],
    };
  }
  if (e.id.startsWith('source:') || e.id.startsWith('supersedes:')) {
    // A knowledge node's provenance or a stated supersession (app's graph_knowledge.go).
    const by = MAKERS[e.createdBy] ?? e.createdBy;
    return {
      type: words(e.type),
      boundary: e.id.startsWith('source:') ? `Knowledge from this segment, by ${by}` : `A supersession stated by ${by}`,
      details: e.rationale ? [e.rationale] : [],
    };
  }
  let boundaries = Array.isArray(m.boundaries) ? m.boundaries.filter((b): b is string => typeof b === 'string') : [];
  if (!boundaries.length && BOUNDARY_TYPES.has(e.type)) boundaries = [e.type];
  const relation = e.createdBy === 'offline' || e.createdBy === 'model' || e.createdBy === 'user';
  const boundary = relation
    ? `A relation across sessions, made by ${MAKERS[e.createdBy] ?? e.createdBy}; confidence ${Math.round((e.confidence ?? 0) * 100)}%`
    : boundaries.length
      ? `${boundaries.length > 1 ? 'Boundaries' : 'Boundary'}: ${boundaries.map(words).join(', ')}`
      : 'No boundary: a link between segments';
  const details: string[] = [];
  if (relation && e.rationale) details.push(e.rationale);
  if (relation && typeof e.similarity === 'number') details.push(`similarity ${e.similarity.toFixed(2)}`);
  if (typeof m.gapMinutes === 'number' && m.gapMinutes > 0) details.push(`${Math.round(m.gapMinutes)} min gap`);
  if (typeof m.tokensBefore === 'number' && m.tokensBefore > 0) details.push(`${formatTokens(m.tokensBefore)} tokens before`);
  return { type: words(e.type), boundary, details };
}

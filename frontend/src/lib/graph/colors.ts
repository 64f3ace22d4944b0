// Colours of node types and styles of edge types in the graph view. Sigma
// draws on a canvas, so these are literal colours, chosen to read on both the
// light and the dark background.

import { knowledgeColor } from './knowledgeNodes';

/** Node types of the node model, in the spec's order (backend/graph.NodeTypes). */
export const NODE_TYPES = [
  'coding', 'debugging', 'refactoring', 'sysadmin', 'research', 'planning', 'qa',
  'brainstorm', 'handoff', 'documentation', 'configuration', 'data', 'other',
] as const;

const NODE_COLORS: Record<string, string> = {
  coding: '#4e79a7',
  debugging: '#e15759',
  refactoring: '#76b7b2',
  sysadmin: '#9c755f',
  research: '#59a14f',
  planning: '#e6b400',
  qa: '#b07aa1',
  brainstorm: '#ff8fa0',
  handoff: '#f28e2b',
  documentation: '#2f9e8f',
  configuration: '#5c7cfa',
  data: '#c2255c',
  other: '#8f96a3',
};

/** Colours for types the palette does not know, picked by a hash of the name. */
const EXTRA = ['#a9746e', '#6a994e', '#bc6c25', '#457b9d', '#9d4edd', '#b5838d'];

function hash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) | 0;
  return Math.abs(h);
}

/** The colour of a node type; unknown types get a stable colour of their own. */
export function nodeColor(type: string): string {
  return NODE_COLORS[type] ?? knowledgeColor(type) ?? EXTRA[hash(type) % EXTRA.length];
}

/**
 * The relation vocabulary (backend/link: AutoMem then ccmemory) that edges
 * across sessions carry, in the order the links issue offers it.
 */
export const RELATION_TYPES = [
  'RELATES_TO', 'LEADS_TO', 'OCCURRED_BEFORE', 'PREFERS_OVER', 'EXEMPLIFIES', 'CONTRADICTS', 'REINFORCES',
  'INVALIDATED_BY', 'EVOLVED_INTO', 'DERIVED_FROM', 'PART_OF', 'SHARES_THEME',
  'SUPERSEDES', 'CONSTRAINS', 'DEPENDS_ON', 'CONFLICTS_WITH', 'IMPACTS', 'INFORMS', 'CITES', 'SIMILAR_TO', 'REFERENCES',
] as const;

/** Edge types of the node model: structural, then semantic, then the relations across sessions. */
export const EDGE_TYPES = [
  'continuation', 'fork', 'branch', 'tree_jump', 'resume', 'compaction',
  'semantic', 'reference', 'lesson_application', 'failure_pattern', 'project_related', 'technique_shared',
  ...RELATION_TYPES,
] as const;

export interface EdgeStyle {
  color: string;
  /** Sigma program: straight arrow or curved arrow (@sigma/edge-curve). */
  program: 'arrow' | 'curved';
  size: number;
}

const EDGE_COLORS: Record<string, string> = {
  continuation: '#8f96a3',
  fork: '#fd7e14',
  branch: '#f59f00',
  tree_jump: '#d6336c',
  resume: '#1c7ed6',
  compaction: '#0ca678',
  semantic: '#7950f2',
  reference: '#15aabf',
  lesson_application: '#37b24d',
  failure_pattern: '#e03131',
  project_related: '#ae3ec9',
  technique_shared: '#74b816',
  // Links people made (Links): their own colour, drawn thicker; a legend toggle like any type.
  link: '#e64980',
  RELATES_TO: '#845ef7',
  LEADS_TO: '#e8590c',
  OCCURRED_BEFORE: '#5f8fb4',
  PREFERS_OVER: '#a61e4d',
  EXEMPLIFIES: '#2f9e44',
  CONTRADICTS: '#f03e3e',
  REINFORCES: '#40c057',
  INVALIDATED_BY: '#862e9c',
  EVOLVED_INTO: '#0b7285',
  DERIVED_FROM: '#5c940d',
  PART_OF: '#868e96',
  SHARES_THEME: '#cc5de8',
  SUPERSEDES: '#c92a2a',
  CONSTRAINS: '#495057',
  DEPENDS_ON: '#2b8a3e',
  CONFLICTS_WITH: '#ff6b6b',
  IMPACTS: '#d9480f',
  INFORMS: '#1098ad',
  CITES: '#3bc9db',
  SIMILAR_TO: '#9775fa',
  REFERENCES: '#228be6',
};

/**
 * The style of an edge type: continuation runs straight along a session's
 * lane; every other type is curved so it stands out from the lane and from
 * parallel edges.
 */
export function edgeStyle(type: string): EdgeStyle {
  const structural = type === 'continuation';
  // Relations across sessions are many: thinner, so the sessions' own
  // edges still read through them.
  const relation = (RELATION_TYPES as readonly string[]).includes(type);
  return {
    color: EDGE_COLORS[type] ?? EXTRA[hash(type) % EXTRA.length],
    program: structural ? 'arrow' : 'curved',
    size: structural ? 1.5 : type === 'link' ? 3 : relation ? 1.2 : 2,
  };
}

/**
 * An edge's colour with its confidence (0 to 1) as opacity: a sure edge is
 * drawn whole, a weak one faint but never invisible (alpha 0.2 + 0.8·c).
 */
export function edgeColor(type: string, confidence: number | undefined): string {
  const base = edgeStyle(type).color;
  const c = typeof confidence === 'number' && Number.isFinite(confidence) ? Math.min(1, Math.max(0, confidence)) : 1;
  if (c >= 1) return base;
  const alpha = Math.round((0.2 + 0.8 * c) * 255);
  return base + alpha.toString(16).padStart(2, '0');
}

/** Known types first in their order, then unknown ones alphabetically. */
export function orderTypes(types: Iterable<string>, known: readonly string[]): string[] {
  const set = new Set(types);
  const out = known.filter((t) => set.has(t));
  const rest = [...set].filter((t) => !known.includes(t)).sort();
  return [...out, ...rest];
}

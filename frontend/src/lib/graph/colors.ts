// Colours of node types and styles of edge types in the graph view. Sigma
// draws on a canvas, so these are literal colours, chosen to read on both the
// light and the dark background.

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
  return NODE_COLORS[type] ?? EXTRA[hash(type) % EXTRA.length];
}

/** Edge types of the node model: structural, then semantic. */
export const EDGE_TYPES = [
  'continuation', 'fork', 'branch', 'tree_jump', 'resume', 'compaction',
  'semantic', 'reference', 'lesson_application', 'failure_pattern', 'project_related', 'technique_shared',
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
};

/**
 * The style of an edge type: continuation runs straight along a session's
 * lane; every other type is curved so it stands out from the lane and from
 * parallel edges.
 */
export function edgeStyle(type: string): EdgeStyle {
  const structural = type === 'continuation';
  return {
    color: EDGE_COLORS[type] ?? EXTRA[hash(type) % EXTRA.length],
    program: structural ? 'arrow' : 'curved',
    size: structural ? 1.5 : type === 'link' ? 3 : 2,
  };
}

/** Known types first in their order, then unknown ones alphabetically. */
export function orderTypes(types: Iterable<string>, known: readonly string[]): string[] {
  const set = new Set(types);
  const out = known.filter((t) => set.has(t));
  const rest = [...set].filter((t) => !known.includes(t)).sort();
  return [...out, ...rest];
}

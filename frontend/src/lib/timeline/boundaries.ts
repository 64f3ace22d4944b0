// Boundary types (why a segment starts) and their colours: the colour of
// the edge type each boundary gives, handoff in the handoff node colour.
import { edgeStyle, nodeColor } from '../graph/colors';

export const BOUNDARY_TYPES = ['branch', 'tree_jump', 'compaction', 'resume', 'handoff'] as const;

export function boundaryColor(type: string): string {
  return type === 'handoff' ? nodeColor('handoff') : edgeStyle(type).color;
}

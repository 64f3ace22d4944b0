// The words the loom view uses for who wrote a node, the same in the
// reading pane, the focus bar, the tree map, History and the diff labels:
// the model by its name, the person as "You", and a node the person made by
// editing another as that node's author's, "edited" (its text is partly
// theirs, partly the person's: the authorship colours say which).

import type { Author } from '../types';

/** Who wrote a node, and whether it is an edit. */
export interface Authored {
  authorType: Author | string;
  authorName: string;
  editedFrom?: string;
}

/** The name of a node's author: the model's name, or "You". */
function authorOf(n: Authored): string {
  return n.authorType === 'model' ? n.authorName || 'model' : 'You';
}

/**
 * What to call the author of node n: "rhizome-test", "You", or for an edit
 * "<the original's author> · edited" (original: the oldest node of its
 * version family, the one first written; when unknown, n itself).
 */
export function authorLabel(n: Authored, original?: Authored | null): string {
  if (!n.editedFrom) return authorOf(n);
  return `${authorOf(original ?? n)} · edited`;
}

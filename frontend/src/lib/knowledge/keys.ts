// The knowledge view's keys (help/shortcuts.ts lists them).

import { isTyping } from '../help/shortcuts';
import { knowledge } from './knowledge.svelte';

/** N: record an item by hand. Whether the key was the view's. */
export function knowledgeKey(e: KeyboardEvent): boolean {
  if (e.ctrlKey || e.metaKey || e.altKey || isTyping(e.target)) return false;
  if (e.key === 'n' && !knowledge.form.open) {
    knowledge.form.start('decision', knowledge.project);
    return true;
  }
  return false;
}

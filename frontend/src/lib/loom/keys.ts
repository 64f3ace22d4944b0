// The loom view's keys (listed in help/shortcuts.ts). The window passes
// key presses here while the loom view is shown and no dialog is open.

import { loom } from './loom.svelte';
import { isTyping } from '../help/shortcuts';
import { pick } from '../import/intake';
import { links } from '../links/links.svelte';

const generate = () => loom.editor.composer?.generate();

/** Link to… from the loom node in focus (K). */
function linkFocus() {
  const step = loom.path.focusStep;
  if (step && loom.tree.id) links.linkFrom(`rhizome:loom/${loom.tree.id}/${step.node.id}`, 'this loom node');
}

/** Handles a key press of the loom view; whether it was one. */
export function loomKey(e: KeyboardEvent): boolean {
  // Alt+G works while typing in the composer (its text is added first).
  if (e.altKey && !e.ctrlKey && !e.metaKey && e.code === 'KeyG') {
    generate();
    return true;
  }
  if (e.ctrlKey || e.metaKey || e.altKey || isTyping(e.target)) return false;
  const open = !!loom.tree.id;
  const acts: Record<string, () => void> = {
    n: () => (loom.showNewTree = true),
    i: () => pick(loom.files.intake),
  };
  if (open) {
    Object.assign(acts, {
      G: generate,
      ArrowRight: () => loom.path.stepSibling(1),
      ']': () => loom.path.stepSibling(1),
      ArrowLeft: () => loom.path.stepSibling(-1),
      '[': () => loom.path.stepSibling(-1),
      ArrowUp: () => loom.path.up(),
      k: () => linkFocus(),
      h: () => loom.path.up(),
      ArrowDown: () => loom.path.down(),
      j: () => loom.path.down(),
      '.': () => loom.path.stepVersion(1),
      ',': () => loom.path.stepVersion(-1),
      e: () => loom.editor.start(),
      b: () => loom.marks.toggleBookmark(),
      p: () => loom.marks.togglePrune(),
      x: () => loom.marks.toggleExcluded(),
      d: () => loom.openHistory(),
      a: () => void loom.path.setAuthorship(loom.path.authorship === 'raw' ? 'semantic' : 'raw'),
      c: () => loom.editor.composer?.focus(),
    });
  }
  const act = acts[e.key];
  if (!act) return false;
  act();
  return true;
}

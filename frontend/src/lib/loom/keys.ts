// The loom view's keys (listed in help/shortcuts.ts). App.svelte passes
// key presses here while the loom view is shown and no dialog is open.

import { loom } from './loom.svelte';
import { isTyping } from '../help/shortcuts';

export interface LoomKeyTargets {
  generate(): void;
  compose(): void;
  importTree(): void;
}

/** Handles a key press of the loom view; whether it was one. */
export function loomKey(e: KeyboardEvent, to: LoomKeyTargets): boolean {
  // Alt+G works while typing in the composer (its text is added first).
  if (e.altKey && !e.ctrlKey && !e.metaKey && e.code === 'KeyG') {
    to.generate();
    return true;
  }
  if (e.ctrlKey || e.metaKey || e.altKey || isTyping(e.target)) return false;
  const open = !!loom.treeId;
  const acts: Record<string, () => void> = {
    n: () => (loom.showNewTree = true),
    i: () => to.importTree(),
  };
  if (open) {
    Object.assign(acts, {
      G: () => to.generate(),
      ArrowRight: () => loom.stepSibling(1),
      ']': () => loom.stepSibling(1),
      ArrowLeft: () => loom.stepSibling(-1),
      '[': () => loom.stepSibling(-1),
      ArrowUp: () => loom.up(),
      k: () => loom.up(),
      h: () => loom.up(),
      ArrowDown: () => loom.down(),
      j: () => loom.down(),
      '.': () => loom.stepVersion(1),
      ',': () => loom.stepVersion(-1),
      e: () => loom.startEdit(),
      b: () => loom.toggleBookmark(),
      p: () => loom.togglePrune(),
      x: () => loom.toggleExcluded(),
      d: () => loom.openHistory(),
      a: () => void loom.setAuthorship(loom.authorship === 'raw' ? 'semantic' : 'raw'),
      c: () => to.compose(),
    });
  }
  const act = acts[e.key];
  if (!act) return false;
  act();
  return true;
}

// The reasoning view's window keys (listed in help/shortcuts.ts); the
// canvas handles its own arrows, Enter and Space.

import { isTyping } from '../help/shortcuts';
import { pick } from '../import/intake';
import { reasoning, reasoningIntake } from './reasoning.svelte';
import { run } from './run.svelte';

/** Handles a key press of the reasoning view; whether it was one. */
export function reasoningKey(e: KeyboardEvent): boolean {
  if (e.ctrlKey || e.metaKey || e.altKey || isTyping(e.target)) return false;
  // The slider moves with its own arrows; elsewhere [ and ] step.
  const onSlider = (e.target as HTMLElement | null)?.getAttribute?.('data-testid') === 'history-slider';
  const acts: Record<string, () => void> = {
    i: () => pick(reasoningIntake),
    I: () => pick(reasoningIntake),
    m: () => run.show(),
  };
  if (reasoning.view) {
    Object.assign(acts, {
      '[': () => reasoning.stepBy(-1),
      ']': () => reasoning.stepBy(1),
      Home: () => reasoning.setStep(0),
      End: () => reasoning.setStep(reasoning.view?.step ?? 0),
      '+': () => reasoning.controls?.zoomIn(),
      '=': () => reasoning.controls?.zoomIn(),
      '-': () => reasoning.controls?.zoomOut(),
      '0': () => reasoning.controls?.fit(),
      a: () => (reasoning.applyOpen = !reasoning.applyOpen),
      e: () => void reasoning.exportGraph(),
      Tab: () => reasoning.controls?.focus(),
    });
  }
  if (onSlider && (e.key === 'Home' || e.key === 'End')) return false;
  if (e.key === 'Tab' && (e.shiftKey || (e.target as HTMLElement | null)?.closest?.('[data-testid=reasoning-view]'))) return false;
  const act = acts[e.key];
  if (!act) return false;
  act();
  return true;
}

// Work that usually ends in a moment (offline summaries, a pass over folders
// the library already holds) shows its progress only once it has gone on
// for a while: no bar flashing in the top bar.

/**
 * Whether busy() has held for ms milliseconds without a break ({ due }),
 * for a component's lifetime: call it while the component initialises.
 */
export function shownAfter(ms: number, busy: () => boolean): { readonly due: boolean } {
  let due = $state(false);
  $effect(() => {
    if (!busy()) {
      due = false;
      return;
    }
    const t = setTimeout(() => (due = true), ms);
    return () => clearTimeout(t);
  });
  return {
    get due() {
      return due;
    },
  };
}

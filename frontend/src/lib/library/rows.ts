// Long lists drawn a page at a time: a library of thousands of sessions
// made a sidebar of a hundred thousand elements, and the window took
// fifteen seconds to show it. The rest is drawn as its end comes near.

/** How many rows a long list draws at first, and adds each time its end comes near. */
export const PAGE_ROWS = 150;

/**
 * How many of a list's n rows to draw when shown are wanted and the
 * selected row is at index selected (-1: none): at least up to the selected
 * one, in whole pages, so that it is in the list to scroll to.
 */
export function rowsToDraw(n: number, shown: number, selected: number): number {
  let k = Math.min(n, shown);
  if (selected >= k) k = Math.min(n, Math.ceil((selected + 1) / PAGE_ROWS) * PAGE_ROWS);
  return k;
}

/** The nearest ancestor of node that scrolls, or null (the viewport). */
function scroller(node: HTMLElement): HTMLElement | null {
  for (let p = node.parentElement; p; p = p.parentElement) {
    const o = getComputedStyle(p).overflowY;
    if (o === 'auto' || o === 'scroll') return p;
  }
  return null;
}

/**
 * Svelte action: calls more() each time node comes within 400 px of the
 * view of its scrolling ancestor (a list's end, to draw its next page).
 */
export function nearView(node: HTMLElement, more: () => void) {
  let fn = more;
  const io = new IntersectionObserver(
    (es) => {
      if (es.some((e) => e.isIntersecting)) fn();
    },
    { root: scroller(node), rootMargin: '400px' },
  );
  io.observe(node);
  return {
    update(next: () => void) {
      fn = next;
    },
    destroy() {
      io.disconnect();
    },
  };
}

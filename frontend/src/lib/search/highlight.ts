// Showing a search's matches in what a hit opened (a message, a loom node):
// the ranges of the words in the text shown, painted with the CSS Custom
// Highlight API (::highlight(rhizome-hit) in app.css). Nothing is added to
// the DOM and no text is parsed as HTML: the rendered text stays as it was.

const NAME = 'rhizome-hit';

/** The ranges of terms (case-insensitive, each at least 2 characters) in root's text, in document order. */
export function termRanges(root: Node, terms: string[]): Range[] {
  const words = [...new Set(terms.map((t) => t.trim().toLowerCase()).filter((t) => t.length >= 2))];
  if (!words.length) return [];
  const out: Range[] = [];
  const doc = root.ownerDocument ?? document;
  const walk = doc.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const text = (n.nodeValue ?? '').toLowerCase();
    for (const w of words) {
      for (let i = text.indexOf(w); i >= 0; i = text.indexOf(w, i + w.length)) {
        const r = doc.createRange();
        r.setStart(n, i);
        r.setEnd(n, i + w.length);
        out.push(r);
      }
    }
  }
  return out.sort((a, b) => a.compareBoundaryPoints(Range.START_TO_START, b));
}

type HighlightRegistry = { set(name: string, h: unknown): void; delete(name: string): void };
const registry = (): HighlightRegistry | null =>
  (globalThis.CSS as unknown as { highlights?: HighlightRegistry } | undefined)?.highlights ?? null;

/**
 * Highlights terms in root (replacing what was highlighted before) and
 * returns the ranges found; the first is scrolled into view. Where the
 * browser has no highlight API the ranges are found and scrolled to only.
 */
export function showHits(root: Element, terms: string[]): Range[] {
  const ranges = termRanges(root, terms);
  const reg = registry();
  const H = (globalThis as unknown as { Highlight?: new (...r: Range[]) => unknown }).Highlight;
  if (reg && H) {
    if (ranges.length) reg.set(NAME, new H(...ranges));
    else reg.delete(NAME);
  }
  ranges[0]?.startContainer.parentElement?.scrollIntoView({ block: 'center' });
  return ranges;
}

/** Clears the highlighted matches. */
export function clearHits() {
  registry()?.delete(NAME);
}

// Loom tree files: the name an export is saved under, the browser download
// (serve mode), and which dropped files are loom trees.

/**
 * A file name for a tree titled title, as Loom.ExportToFile makes it:
 * "title.loom.json", characters file systems dislike replaced.
 */
export function exportFileName(title: string): string {
  const clipped = Array.from(title).slice(0, 60).join('');
  let name = Array.from(clipped, (c) => (/[\p{L}\p{N} _-]/u.test(c) ? c : '_')).join('');
  name = name.replace(/^_+|_+$/g, '').trim();
  return `${name || 'loom-tree'}.loom.json`;
}

/** Loom tree files are JSON: a Rhizome export or a socketteer/loom tree. */
export const isLoomFile = (name: string) => name.toLowerCase().endsWith('.json');

/** Offers text as a file download (browser, serve mode). */
export function downloadText(name: string, text: string, type = 'application/json') {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.rel = 'noopener';
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

// Keyboard shortcuts of the window: the help overlay lists them and
// App.svelte handles them.

export interface Shortcut {
  keys: string[];
  what: string;
}

export const SHORTCUTS: Shortcut[] = [
  { keys: ['Ctrl', 'K'], what: 'Search (also ⌘K)' },
  { keys: ['/'], what: 'Search' },
  { keys: ['Enter'], what: 'Jump to the selected search result' },
  { keys: ['↑', '↓'], what: 'Move through search results' },
  { keys: ['Esc'], what: 'Close the panel, the search or this help' },
  { keys: ['['], what: 'Previous segment of the session' },
  { keys: [']'], what: 'Next segment of the session' },
  { keys: ['+'], what: 'Zoom in' },
  { keys: ['-'], what: 'Zoom out' },
  { keys: ['0'], what: 'Fit the graph' },
  { keys: ['L'], what: 'Switch layout: session lanes / ForceAtlas2' },
  { keys: ['I'], what: 'Import session files' },
  { keys: ['?'], what: 'This help' },
];

/** True when the key event is typing into a field (shortcuts other than Esc and Ctrl+K stay out of the way). */
export function isTyping(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el || !el.tagName) return false;
  return el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName);
}

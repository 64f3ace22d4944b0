// Keyboard shortcuts of the window: the help overlay lists them, App.svelte
// handles the general ones (a view's key comes from its ViewSpec), and
// each view its own: graph/keys.ts, loom/keys.ts.

export interface Shortcut {
  /** Pressed together, or with `or` alternatives. */
  keys: string[];
  what: string;
  or?: boolean;
}

export interface ShortcutGroup {
  title: string;
  shortcuts: Shortcut[];
}

export const SHORTCUT_GROUPS: ShortcutGroup[] = [
  {
    title: 'Everywhere',
    shortcuts: [
      { keys: ['G'], what: 'Graph view' },
      { keys: ['L'], what: 'Loom view' },
      { keys: ['M'], what: 'Memory view: hybrid search, consolidation' },
      { keys: ['U'], what: 'Patterns dashboard and usage over time' },
      { keys: ['Ctrl', 'K'], what: 'Search (also ⌘K)' },
      { keys: ['/'], what: 'Search' },
      { keys: ['Enter'], what: 'Jump to the selected search result' },
      { keys: ['Esc'], what: 'Close a message (toast), the dialog, editor, panel, search or this help' },
      { keys: ['?'], what: 'This help' },
    ],
  },
  {
    title: 'Graph',
    shortcuts: [
      { keys: ['Tab'], what: 'Focus the graph; again: the node list' },
      { keys: ['←', '↑', '→', '↓'], what: 'Move to the connected node that way (else the nearest one)' },
      { keys: ['Enter'], what: 'Open the node in focus' },
      { keys: ['Esc'], what: 'Let go of the bridge path drawn; close the node; in the node list, back to the graph' },
      { keys: ['↑', '↓'], what: 'In the node list: previous / next node', or: true },
      { keys: ['['], what: 'Previous segment of the session' },
      { keys: [']'], what: 'Next segment of the session' },
      { keys: ['+'], what: 'Zoom in' },
      { keys: ['-'], what: 'Zoom out' },
      { keys: ['0'], what: 'Fit the graph' },
      { keys: ['Shift', 'L'], what: 'Switch layout: session lanes / ForceAtlas2' },
      { keys: ['I'], what: 'Import session files' },
    ],
  },
  {
    title: 'Loom',
    shortcuts: [
      { keys: ['Shift', 'G'], what: 'Generate continuations (also Alt+G, even while typing)' },
      { keys: ['Ctrl', 'Enter'], what: 'Add your text / save the edit' },
      { keys: ['→', ']'], what: 'Next sibling', or: true },
      { keys: ['←', '['], what: 'Previous sibling', or: true },
      { keys: ['↑', 'K'], what: 'Parent (also H)', or: true },
      { keys: ['↓', 'J'], what: 'Child (the one last visited)', or: true },
      { keys: ['.', ','], what: 'Next / previous version (buffer mode)', or: true },
      { keys: ['E'], what: 'Edit the node (dialogue: as a branch; buffer: in place)' },
      { keys: ['B'], what: 'Bookmark the node' },
      { keys: ['P'], what: 'Prune the node’s branch, or restore it' },
      { keys: ['X'], what: 'Leave the node out of what the model is sent, or put it back' },
      { keys: ['D'], what: 'Edit history as a diff' },
      { keys: ['A'], what: 'Authorship: raw / semantic' },
      { keys: ['C'], what: 'Write: focus the composer' },
      { keys: ['N'], what: 'New loom tree' },
      { keys: ['I'], what: 'Import a loom tree (.json)' },
    ],
  },
];

/** Every shortcut, in the order listed. */
export const SHORTCUTS: Shortcut[] = SHORTCUT_GROUPS.flatMap((g) => g.shortcuts);

/** True when the key event is typing into a field (shortcuts other than Esc and Ctrl+K stay out of the way). */
export function isTyping(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el || !el.tagName) return false;
  if (el.tagName === 'INPUT') return !NOT_TEXT.has((el as HTMLInputElement).type);
  return el.isContentEditable || ['TEXTAREA', 'SELECT'].includes(el.tagName);
}

/** Inputs that take no text: keys pressed on them are shortcuts. */
const NOT_TEXT = new Set(['checkbox', 'radio', 'button', 'submit', 'reset', 'range', 'color', 'file']);

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
      { keys: ['R'], what: 'Reasoning view' },
      { keys: ['W'], what: 'Knowledge view: decisions, project rules, open questions' },
      { keys: ['M'], what: 'Memory view: hybrid search, consolidation' },
      { keys: ['U'], what: 'Patterns dashboard and usage over time' },
      { keys: ['Ctrl', 'K'], what: 'Search (also ⌘K)' },
      { keys: ['/'], what: 'Search' },
      { keys: ['Enter'], what: 'Jump to the selected search result' },
      { keys: ['Esc'], what: 'Close a message (toast), the dialog, editor, panel, search or this help' },
      { keys: ['K'], what: 'Link the selected node or loom node to any item (the picker, then the type); in the graph, drag a node onto another' },
      { keys: ['[', '['], what: 'In a note or loom text: mention an item (the picker opens)' },
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
      { keys: ['E'], what: 'Edit the summary of the open node (else the title of the session shown); Ctrl+Enter saves' },
      { keys: ['F'], what: 'Focus mode: the selected node and its neighbours only; again: the whole graph' },
      { keys: ['1', '2', '3'], what: 'Focus depth: neighbours up to 1, 2 or 3 edges away', or: true },
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
      { keys: ['↑', 'H'], what: 'Parent', or: true },
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
  {
    title: 'Reasoning',
    shortcuts: [
      { keys: ['Tab'], what: 'Focus the graph' },
      { keys: ['←', '↑', '→', '↓'], what: 'Parent, sibling above, child, sibling below (else the nearest node that way)' },
      { keys: ['Enter'], what: 'Open the node in focus: its notes, turns and links' },
      { keys: ['Space'], what: 'Open or close the span a summary folded' },
      { keys: ['Esc'], what: 'Close the node, the paste box or the dialog' },
      { keys: ['['], what: 'History: one step back' },
      { keys: [']'], what: 'History: one step forward' },
      { keys: ['Home', 'End'], what: 'History: where it starts, now', or: true },
      { keys: ['A'], what: 'Apply a patch or a flush and fold (paste or a file)' },
      { keys: ['E'], what: 'Export the MemoBrain snapshot' },
      { keys: ['+', '-', '0'], what: 'Zoom in, out, fit', or: true },
      { keys: ['I'], what: 'Import MemoBrain snapshots' },
      { keys: ['M'], what: 'Make the reasoning graph of a session with the model' },
    ],
  },
  {
    title: 'Knowledge',
    shortcuts: [
      { keys: ['N'], what: 'Record a decision, fact, lesson or question by hand' },
      { keys: ['Ctrl', 'Enter'], what: 'Save the record form' },
      { keys: ['Esc'], what: 'Close the record form' },
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

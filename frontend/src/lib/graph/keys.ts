// The graph view's window keys (listed in help/shortcuts.ts); the canvas
// and the node list handle their own arrow keys.

import { isTyping } from '../help/shortcuts';
import { sessionIntake } from '../import/imports.svelte';
import { pick } from '../import/intake';
import { library } from '../library/library.svelte';
import { nodeItem, sessionItem, summaries } from '../summaries/summaries.svelte';
import { graph } from './graph.svelte';
import { links } from '../links/links.svelte';

/** Link to… from the selected node (K). */
function linkSelected() {
  const id = graph.selected;
  if (id) links.linkFrom(`rhizome:node/${id}`, `“${graph.nodeById.get(id)?.label || 'this node'}”`);
}

const KEYS: Record<string, () => void> = {
  '+': () => graph.controls?.zoomIn(),
  '=': () => graph.controls?.zoomIn(),
  '-': () => graph.controls?.zoomOut(),
  '0': () => graph.controls?.fit(),
  '[': () => graph.stepSegment(-1),
  ']': () => graph.stepSegment(1),
  L: () => graph.toggleLayout(),
  f: () => graph.toggleFocus(),
  F: () => graph.toggleFocus(),
  '1': () => graph.setFocusDepth(1),
  '2': () => graph.setFocusDepth(2),
  '3': () => graph.setFocusDepth(3),
  i: () => pick(sessionIntake),
  k: linkSelected,
  I: () => pick(sessionIntake),
  e: editSummary,
  E: editSummary,
};

/** E: edits the summary of the node open, else the title of the session shown. */
function editSummary() {
  if (graph.selected) void summaries.edit(nodeItem(graph.selected), 'segment');
  else if (library.session) void summaries.edit(sessionItem(library.session), 'session');
}

/** Handles a key press of the graph view; whether it was one. */
export function graphKey(e: KeyboardEvent): boolean {
  if (e.ctrlKey || e.metaKey || e.altKey || isTyping(e.target)) return false;
  const act = KEYS[e.key];
  if (!act) return false;
  act();
  return true;
}

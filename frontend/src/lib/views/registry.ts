// Every view of the window, in the order of their tabs. A new view is a
// feature folder with its store and a ViewSpec (its view.ts), listed here.

import { graphView } from '../graph/view';
import { knowledgeView } from '../knowledge/view';
import { loomView } from '../loom/view';
import { reasoningView } from '../reasoning/view';
import { memoryView } from '../memory/view';
import { patternsView } from '../patterns/view';
import { views } from './views.svelte';

export function registerViews() {
  views.register(graphView, loomView, reasoningView, knowledgeView, memoryView, patternsView);
}

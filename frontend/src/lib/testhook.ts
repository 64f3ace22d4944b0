// window.__rhizome: a small handle for end-to-end tests (and the curious in
// the devtools). It only does what the UI can do: select a node, read the
// ids drawn and where a node is on the canvas, and draw a synthetic graph
// to measure the graph view at scale.

import { flushSync } from 'svelte';
import { app } from './state.svelte';
import { syntheticGraph } from './graph/synthetic';
import type { ImportProgress } from './types';

export interface TestHook {
  selectNode(id: string): Promise<void>;
  nodeIds(): string[];
  /** Page coordinates of a node on the canvas, for real clicks. */
  nodePosition(id: string): { x: number; y: number } | null;
  /**
   * Replaces the drawn graph with n synthetic nodes. Resolves with the
   * main-thread time to build and lay it out (ms) and the time until two
   * frames were presented.
   */
  loadSynthetic(n: number): Promise<{ build: number; frames: number }>;
  /** Main-thread milliseconds of the last graph renders (up to 240). */
  renderTimes(): number[];
  state(): {
    selected: string | null;
    graphLoading: boolean;
    importing: boolean;
    nodes: number;
    /** The last import:progress event received. */
    progress: ImportProgress | null;
  };
}

export function installTestHook() {
  const hook: TestHook = {
    selectNode: (id) => app.selectNode(id, true),
    nodeIds: () => (app.graph.nodes ?? []).map((n) => n.id),
    nodePosition: (id) => app.controls?.screenPosition(id) ?? null,
    loadSynthetic(n) {
      const data = syntheticGraph(n);
      const t0 = performance.now();
      flushSync(() => {
        app.session = '';
        app.timeline = [];
        app.graph = data;
      });
      const build = performance.now() - t0;
      return new Promise((ok) =>
        requestAnimationFrame(() => requestAnimationFrame(() => ok({ build, frames: performance.now() - t0 }))),
      );
    },
    renderTimes: () => app.controls?.renderTimes() ?? [],
    state: () => ({
      selected: app.selected,
      graphLoading: app.graphLoading,
      importing: app.importing,
      nodes: (app.graph.nodes ?? []).length,
      progress: app.progress ? { ...app.progress } : null,
    }),
  };
  (window as unknown as { __rhizome: TestHook }).__rhizome = hook;
}

// window.__rhizome: a small handle for end-to-end tests (and the curious in
// the devtools). It only does what the UI can do: select a node, read the
// ids drawn and where a node is on the canvas, and draw a synthetic graph
// to measure the graph view at scale.

import { flushSync } from 'svelte';
import { graph } from './graph/graph.svelte';
import { syntheticGraph } from './graph/synthetic';
import { imports } from './import/imports.svelte';
import { loom } from './loom/loom.svelte';
import { views } from './views/views.svelte';
import { positionOf } from './loom/tree';
import { reasoning } from './reasoning/reasoning.svelte';
import type { ImportProgress } from './types';

export interface TestHook {
  selectNode(id: string): Promise<void>;
  /** Selects a session as clicking its lane does. */
  selectSession(id: string): Promise<void>;
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
  /** The loom view: open tree, the active path's steps, the focus, a running generation. */
  loom(): {
    view: string;
    treeId: string;
    activePath: { nodeId: string; versions?: Record<string, string> | null } | null;
    focus: string;
    steps: { id: string; position: string; text: string; author: string }[];
    generating: boolean;
  };
  /** The reasoning view: the graph open, the step shown, the nodes drawn at it and their states. */
  reasoning(): {
    graphId: string;
    step: number;
    steps: number;
    stepLoading: boolean;
    nodes: { id: number; state: string; kind: string }[];
    selected: number | null;
    cursor: number | null;
  };
  state(): {
    selected: string | null;
    /** The node the keyboard is on in the graph. */
    cursor: string | null;
    /** The bridge path drawn over the graph. */
    path: string[] | null;
    graphLoading: boolean;
    importing: boolean;
    nodes: number;
    /** The last import:progress event received. */
    progress: ImportProgress | null;
  };
}

export function installTestHook() {
  const hook: TestHook = {
    selectNode: (id) => graph.selectNode(id, true),
    selectSession: (id) => graph.selectSession(id),
    nodeIds: () => graph.data.nodes.map((n) => n.id),
    nodePosition: (id) => graph.controls?.screenPosition(id) ?? null,
    loadSynthetic(n) {
      const data = syntheticGraph(n);
      const t0 = performance.now();
      flushSync(() => graph.show(data));
      const build = performance.now() - t0;
      return new Promise((ok) =>
        requestAnimationFrame(() => requestAnimationFrame(() => ok({ build, frames: performance.now() - t0 }))),
      );
    },
    renderTimes: () => graph.controls?.renderTimes() ?? [],
    loom: () => ({
      view: views.current,
      treeId: loom.tree.id,
      activePath: loom.path.view ? JSON.parse(JSON.stringify(loom.path.view.activePath)) : null,
      focus: loom.path.focus,
      steps: loom.path.steps.map((s) => ({ id: s.node.id, position: positionOf(s), text: s.node.text, author: s.node.authorType })),
      generating: !!loom.gen.current,
    }),
    reasoning: () => ({
      graphId: reasoning.id,
      step: reasoning.step,
      steps: reasoning.view?.step ?? 0,
      stepLoading: reasoning.stepLoading,
      nodes: reasoning.scene.nodes.map((n) => ({ id: n.id, state: n.state, kind: n.node.kind })),
      selected: reasoning.selected,
      cursor: reasoning.cursor,
    }),
    state: () => ({
      selected: graph.selected,
      cursor: graph.cursor,
      path: graph.path,
      graphLoading: graph.loading,
      importing: imports.running,
      nodes: graph.data.nodes.length,
      progress: imports.progress ? { ...imports.progress } : null,
    }),
  };
  (window as unknown as { __rhizome: TestHook }).__rhizome = hook;
}

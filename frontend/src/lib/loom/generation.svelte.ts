// Generating: the model's continuations of the path's end as they stream
// in (loom:start, loom:delta, loom:error), cancelling, and why the last
// generation wrote nothing.

import { api } from '../api';
import { errorText } from '../format';
import { toasts } from '../toasts/toasts.svelte';
import type { LoomDelta, LoomGenerationError, LoomGenerationStart } from '../types';
import type { Loom } from './loom.svelte';

/** A generation while the model writes: the text of each continuation so far. */
export interface Generation {
  requestId: string;
  treeId: string;
  /** The node continued; "" until loom:start says. */
  parentId: string;
  n: number;
  model: string;
  texts: string[];
  /** loom:start arrived. */
  started: boolean;
}

/** Why the last generation wrote nothing. */
export interface GenerationFailure {
  requestId: string;
  message: string;
  /** No model is configured: the way out is the Settings dialog. */
  noModel: boolean;
}

const newRequestId = () => `gen-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

export class Generations {
  /** The generation running, if any (one at a time, in any tree). */
  current = $state<Generation | null>(null);
  failure = $state.raw<GenerationFailure | null>(null);

  constructor(private loom: Loom) {}

  /** Subscribes to the generation events; returns the unsubscribe. */
  listen(): () => void {
    const offs = [
      api.on('loom:start', (e) => this.onStart(e)),
      api.on('loom:delta', (e) => this.onDelta(e)),
      api.on('loom:error', (e) => this.onError(e)),
    ];
    return () => offs.forEach((off) => off());
  }

  /**
   * Asks the model for the settings' N continuations of the path's end
   * (text first added as the person's, when given). The continuations
   * stream into live cards; when done the path moves to the first.
   */
  async generate(n: number, text = '') {
    const { tree, path } = this.loom;
    if (this.current || !tree.id) return;
    if (text && !(await this.loom.editor.addText(text))) return;
    const end = path.end;
    if (!end) return;
    const treeId = tree.id;
    const requestId = newRequestId();
    this.failure = null;
    this.loom.notice = '';
    this.current = { requestId, treeId, parentId: end.node.id, n, model: '', texts: Array(n).fill(''), started: false };
    try {
      const res = await api.loom.generate({ treeId, activePath: path.wanted, n: 0, requestId });
      const first = res.nodes[0];
      if (first && tree.id === treeId) {
        await Promise.all([tree.refresh(), path.goTo({ nodeId: first.id, versions: path.versionChoices() }, first.id)]);
      }
    } catch (e) {
      this.fail(requestId, errorText(e), /cancel/i.test(errorText(e)));
    } finally {
      if (this.current?.requestId === requestId) this.current = null;
    }
  }

  async cancel() {
    const g = this.current;
    if (!g) return;
    try {
      await api.loom.cancelGeneration(g.requestId);
    } catch (e) {
      toasts.fail(e);
    }
  }

  private fail(requestId: string, message: string, cancelled: boolean) {
    if (cancelled) {
      this.failure = null;
      this.loom.say('Generation cancelled: nothing was written.');
      return;
    }
    if (this.failure?.requestId === requestId) return;
    this.failure = { requestId, message, noModel: /no model configured/i.test(message) };
  }

  private onStart(e: LoomGenerationStart) {
    const g = this.current;
    if (!g || e.requestId !== g.requestId) return;
    g.parentId = e.parentId;
    g.model = e.model;
    g.started = true;
    if (e.n !== g.texts.length) g.texts = Array.from({ length: e.n }, (_, i) => g.texts[i] ?? '');
    g.n = e.n;
  }

  private onDelta(d: LoomDelta) {
    const g = this.current;
    if (!g || d.requestId !== g.requestId || d.index < 0) return;
    while (g.texts.length <= d.index) g.texts.push('');
    g.texts[d.index] += d.text;
  }

  private onError(e: LoomGenerationError) {
    if (!this.current || e.requestId !== this.current.requestId) return;
    this.fail(e.requestId, e.error, e.cancelled);
    this.current = null;
  }
}

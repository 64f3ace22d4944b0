// Making the reasoning graph of a session: MemoBrain's loop run by the
// configured model (Reasoning.RunOnSession), its progress
// (reasoning:progress) and cancelling it. The dialog is RunDialog.svelte.

import { api } from '../api';
import { errorText } from '../format';
import type { ReasoningRunProgress, ReasoningRunResult } from '../types';
import { reasoning } from './reasoning.svelte';

class Run {
  open = $state(false);
  sessionId = $state('');
  /** Nodes the graph may show before flush and fold; 0: Go's default. */
  budget = $state(0);
  requestId = $state('');
  progress = $state.raw<ReasoningRunProgress | null>(null);
  error = $state('');
  result = $state.raw<ReasoningRunResult | null>(null);

  get running() {
    return this.requestId !== '';
  }

  /** Subscribes to reasoning:progress; returns the unsubscribe. */
  listen(): () => void {
    return api.on('reasoning:progress', (p) => {
      if (p?.requestId === this.requestId) this.progress = p;
    });
  }

  show(sessionId = '') {
    if (sessionId) this.sessionId = sessionId;
    this.error = '';
    this.result = null;
    this.open = true;
  }

  async start() {
    if (this.running || !this.sessionId) return;
    const id = `run-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
    this.requestId = id;
    this.progress = null;
    this.error = '';
    this.result = null;
    try {
      const res = await api.reasoning.runOnSession({ sessionId: this.sessionId, budget: this.budget || 0, requestId: id });
      this.result = res;
      await reasoning.loadList();
      await reasoning.open(res.graph.id);
      const left = res.problems.length;
      reasoning.say(
        `Made “${res.graph.title}”: ${res.turns} turns, ${res.applied} patches, ${res.recalls} flush and fold${left ? `, ${left} replies left out` : ''}.`,
      );
      if (!left) this.open = false;
    } catch (e) {
      this.error = errorText(e);
    } finally {
      this.requestId = '';
    }
  }

  async cancel() {
    if (this.running) await api.reasoning.cancelRun(this.requestId);
  }

  /** Escape: closes the dialog unless a run goes; whether it was open. */
  close(): boolean {
    if (!this.open) return false;
    if (!this.running) this.open = false;
    return true;
  }
}

export const run = new Run();

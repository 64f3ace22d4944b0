// The model analyzer's queue (Analysis.*): its status (kept current by the
// "analysis:progress" events), the estimate before a batch, the budget, and
// start, pause, resume and cancel. The panel and the node panel call it.

import { api } from '../api';
import { errorText } from '../format';
import { library } from '../library/library.svelte';
import type { AnalysisEstimate, AnalysisStatus } from '../types';

const IDLE: AnalysisStatus = {
  state: 'idle', queued: 0, done: 0, failed: 0, model: '', budgetUsd: 0, spentUsd: 0, spentTokens: 0,
};

class AnalyzerQueue {
  status = $state.raw<AnalysisStatus>(IDLE);
  estimate = $state.raw<AnalysisEstimate | null>(null);
  /** The items the estimate is for (what Start would queue). */
  estimateFor = $state<string[]>([]);
  panelOpen = $state(false);
  busy = $state(false);
  error = $state('');

  private subscribed = false;

  /** Subscribes to progress events once, and reads the status. */
  init() {
    if (!this.subscribed) {
      this.subscribed = true;
      api.on('analysis:progress', (s) => {
        this.status = s;
        library.requestRefresh();
      });
    }
    void this.refresh();
  }

  async refresh() {
    try {
      this.status = await api.analysis.status();
    } catch (e) {
      this.error = errorText(e);
    }
  }

  /** The items of the current scope: the project shown, else every node not analysed yet. */
  scopeItems(): string[] {
    return library.session ? [library.session] : library.project ? [library.project] : [];
  }

  private async act(fn: () => Promise<AnalysisStatus>) {
    this.busy = true;
    this.error = '';
    try {
      this.status = await fn();
    } catch (e) {
      this.error = errorText(e);
    } finally {
      this.busy = false;
    }
  }

  async runEstimate(items = this.scopeItems()) {
    this.busy = true;
    this.error = '';
    this.estimate = null;
    try {
      this.estimate = await api.analysis.estimate(items);
      this.estimateFor = items;
    } catch (e) {
      this.error = errorText(e);
    } finally {
      this.busy = false;
    }
  }

  start(items = this.estimateFor, manual = false) {
    return this.act(() => api.analysis.start({ items, manual }));
  }
  pause = () => this.act(() => api.analysis.pause());
  resume = () => this.act(() => api.analysis.resume());
  cancel = () => this.act(() => api.analysis.cancel());
  setBudget = (usd: number) => this.act(() => api.analysis.setBudget(usd));

  /** Analyses one node again with the model (a new version even when current). */
  analyseNode(id: string) {
    this.panelOpen = true;
    return this.start([id], true);
  }
}

export const analysis = new AnalyzerQueue();

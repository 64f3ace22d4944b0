// The Patterns view's store: the dashboard (seven patterns, usage over
// time) and what the chart shows.

import { api } from '../api';
import type { Dashboard } from '../types';

class PatternsStore {
  dashboard = $state.raw<Dashboard | null>(null);
  loading = $state(false);
  error = $state('');
  /** What the chart measures. */
  measure = $state<'tokens' | 'cost'>('tokens');
  /** What the chart's bars are split by. */
  split = $state<'model' | 'project'>('model');
  /** The open finding (section pattern + item key). */
  open = $state<string | null>(null);

  async load() {
    this.loading = true;
    this.error = '';
    try {
      this.dashboard = await api.dashboard();
    } catch (e) {
      this.error = String(e);
    } finally {
      this.loading = false;
    }
  }

  toggle(key: string) {
    this.open = this.open === key ? null : key;
  }
}

export const patterns = new PatternsStore();

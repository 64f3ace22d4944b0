// The Memory view's store: the hybrid search with each result's "why", the
// bridges between results, and consolidation's runs (run now, dry run,
// undo). Components call this; this calls api.

import { api } from '../api';
import type { ConsolidationRun, HybridResult, SearchSettings, VectorStatus } from '../types';

/** The spec's weights (automem-features.md, "Hybrid Search & Scoring") and AutoMem's decay. */
const SPEC_DEFAULTS = {
  weights: { vector: 0.25, keyword: 0.15, relation: 0.25, content: 0.25, temporal: 0.15, tag: 0.1, importance: 0.05, recency: 0.1 },
  decayRate: 0.01,
};

class MemoryStore {
  query = $state('');
  bridges = $state(true);
  archived = $state(false);
  result = $state.raw<HybridResult | null>(null);
  /** The hit whose breakdown is open (its item). */
  open = $state<string | null>(null);
  searching = $state(false);
  error = $state('');

  runs = $state.raw<ConsolidationRun[]>([]);
  due = $state.raw<string[]>([]);
  running = $state(false);
  vectors = $state.raw<VectorStatus | null>(null);
  lastPlan = $state.raw<ConsolidationRun | null>(null);
  settings = $state<SearchSettings | null>(null);
  settingsNote = $state('');

  async loadSettings() {
    try {
      this.settings = await api.hybrid.settings();
    } catch (e) {
      this.settingsNote = String(e);
    }
  }

  defaultSettings() {
    if (!this.settings) return;
    this.settings.weights = { ...SPEC_DEFAULTS.weights };
    this.settings.decayRate = SPEC_DEFAULTS.decayRate;
  }

  async saveSettings() {
    if (!this.settings) return;
    this.settingsNote = '';
    try {
      this.settings = await api.hybrid.setSettings($state.snapshot(this.settings));
      this.settingsNote = 'Saved. Vectors are remade in the background when the model changed.';
      await this.loadVectors();
    } catch (e) {
      this.settingsNote = String(e);
    }
  }

  async start() {
    await Promise.all([this.loadRuns(), this.loadVectors()]);
  }

  async loadVectors() {
    try {
      this.vectors = await api.hybrid.vectorStatus();
    } catch (e) {
      this.error = String(e);
    }
  }

  async search() {
    const q = this.query.trim();
    if (!q) {
      this.result = null;
      return;
    }
    this.searching = true;
    this.error = '';
    try {
      this.result = await api.hybrid.query({
        query: q, limit: 30, bridges: this.bridges,
        filter: {
          project: '', kinds: [], nodeTypes: [], roles: [], tools: [], files: [], models: [], relationTypes: [],
          from: '', to: '', archived: this.archived,
        },
      });
      this.open = this.result.hits[0]?.item ?? null;
    } catch (e) {
      this.error = String(e);
    } finally {
      this.searching = false;
    }
  }

  toggle(item: string) {
    this.open = this.open === item ? null : item;
  }

  async loadRuns() {
    try {
      [this.runs, this.due] = await Promise.all([api.memory.runs(20), api.memory.due()]);
    } catch (e) {
      this.error = String(e);
    }
  }

  async consolidate(cycles: string[], dryRun: boolean) {
    this.running = true;
    this.error = '';
    try {
      const run = await api.memory.consolidate({ cycles: cycles as ('decay' | 'creative' | 'cluster' | 'forget')[], dryRun });
      this.lastPlan = dryRun ? run : null;
      await this.loadRuns();
    } catch (e) {
      this.error = String(e);
    } finally {
      this.running = false;
    }
  }

  async undo(id: string) {
    this.running = true;
    this.error = '';
    try {
      await api.memory.undo(id);
      await this.loadRuns();
    } catch (e) {
      this.error = String(e);
    } finally {
      this.running = false;
    }
  }
}

export const memory = new MemoryStore();

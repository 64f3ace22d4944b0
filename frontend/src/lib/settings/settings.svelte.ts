// The model settings the loom generates with (Settings.Get), and whether
// the Settings dialog is open. Reloaded on settings:changed.

import { api } from '../api';
import type { LLMSettingsInput, LLMTestResult, SettingsView } from '../types';

class SettingsState {
  view = $state.raw<SettingsView | null>(null);
  /** Why the settings could not be read. */
  error = $state('');
  open = $state(false);
  saving = $state(false);
  testing = $state(false);
  test = $state.raw<LLMTestResult | null>(null);

  /** Provider and model set: generation can run. */
  configured = $derived(!!this.view?.llm.configured);
  /** Continuations per generation. */
  n = $derived(Math.max(1, this.view?.llm.n ?? 1));

  /** Subscribes to settings:changed; returns the unsubscribe. */
  listen(): () => void {
    return api.on('settings:changed', () => void this.load());
  }

  async load() {
    try {
      this.view = await api.settings.get();
      this.error = '';
    } catch (e) {
      this.error = e instanceof Error ? e.message : String(e);
    }
  }

  show() {
    this.test = null;
    this.open = true;
    void this.load();
  }

  /** Saves the form; throws Go's error text. */
  async save(input: LLMSettingsInput) {
    this.saving = true;
    try {
      this.view = await api.settings.setLLM(input);
    } finally {
      this.saving = false;
    }
  }

  async runTest() {
    this.testing = true;
    this.test = null;
    try {
      this.test = await api.settings.testLLM();
    } catch (e) {
      this.test = { ok: false, error: e instanceof Error ? e.message : String(e), model: this.view?.llm.model ?? '', elapsedMs: 0 };
    } finally {
      this.testing = false;
    }
  }
}

export const settings = new SettingsState();

// The settings form: what its fields hold (text, as typed) and the
// LLMSettingsInput Settings.SetLLM takes, with the errors a person must fix.

import type { LLMSettings, LLMSettingsInput } from '../types';

export const PROVIDERS = [
  { id: 'openai', label: 'OpenAI-compatible', hint: 'OpenAI, or any server speaking its API (vLLM, llama.cpp, OpenRouter, …)' },
  { id: 'anthropic', label: 'Anthropic', hint: 'Claude models through the Anthropic Messages API' },
] as const;

/** Continuations per generation Go accepts (llm.MaxN). */
export const MAX_N = 64;

export interface SettingsForm {
  provider: string;
  baseUrl: string;
  model: string;
  /** "" = the server's default. */
  temperature: string;
  /** "" or "0" = the server's default. */
  maxTokens: string;
  n: string;
  stream: boolean;
  /** A new key; "" keeps the stored one. */
  apiKey: string;
  clearApiKey: boolean;
}

/** The form showing settings s (never a key: the field starts empty). */
export function formOf(s: LLMSettings | null | undefined): SettingsForm {
  return {
    provider: s?.provider || 'openai',
    baseUrl: s?.baseUrl ?? '',
    model: s?.model ?? '',
    temperature: s?.temperature == null ? '' : String(s.temperature),
    maxTokens: s?.maxTokens ? String(s.maxTokens) : '',
    n: String(s?.n || 1),
    stream: !s?.noStream,
    apiKey: '',
    clearApiKey: false,
  };
}

/** What is wrong with a form, by field. */
export type FormErrors = Partial<Record<keyof SettingsForm, string>>;

/**
 * The input for Settings.SetLLM, or what is wrong with the form: every
 * invalid field in errors, and all their messages in error (one a line, in
 * the form's order).
 */
export function inputOf(
  f: SettingsForm,
): { input: LLMSettingsInput; error?: undefined; errors?: undefined } | { error: string; errors: FormErrors; input?: undefined } {
  const errors: FormErrors = {};
  if (!PROVIDERS.some((p) => p.id === f.provider)) errors.provider = `Provider: choose ${PROVIDERS.map((p) => p.id).join(' or ')}.`;
  const baseUrl = f.baseUrl.trim();
  if (baseUrl && !/^https?:\/\/\S+$/i.test(baseUrl)) errors.baseUrl = 'Base URL: an http:// or https:// address, or empty for the default.';
  if (!f.model.trim()) errors.model = 'Model: name the model to generate with (e.g. gpt-4o, claude-sonnet-4-5).';
  let temperature: number | null = null;
  if (f.temperature.trim() !== '') {
    temperature = Number(f.temperature);
    if (!Number.isFinite(temperature) || temperature < 0 || temperature > 2) {
      errors.temperature = 'Temperature: a number from 0 to 2, or empty for the server’s default.';
    }
  }
  const maxTokens = f.maxTokens.trim() === '' ? 0 : Number(f.maxTokens);
  if (!Number.isInteger(maxTokens) || maxTokens < 0) errors.maxTokens = 'Max tokens: a whole number, or empty for the server’s default.';
  const n = Number(f.n);
  if (!Number.isInteger(n) || n < 1 || n > MAX_N) errors.n = `Continuations: a whole number from 1 to ${MAX_N}.`;
  const messages = Object.values(errors);
  if (messages.length) return { error: messages.join('\n'), errors };
  const input: LLMSettingsInput = {
    provider: f.provider,
    baseUrl,
    model: f.model.trim(),
    temperature,
    maxTokens,
    n,
    noStream: !f.stream,
  };
  if (f.clearApiKey) input.clearApiKey = true;
  else if (f.apiKey.trim()) input.apiKey = f.apiKey.trim();
  return { input };
}

/** Whether the form differs from the settings it was made from. */
export function formChanged(f: SettingsForm, s: LLMSettings | null | undefined): boolean {
  const o = formOf(s);
  return (Object.keys(o) as (keyof SettingsForm)[]).some((k) => String(o[k]).trim() !== String(f[k]).trim());
}

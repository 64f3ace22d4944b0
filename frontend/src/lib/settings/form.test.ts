import { describe, expect, it } from 'vitest';
import { formChanged, formOf, inputOf } from './form';
import type { LLMSettings } from '../types';

const TEST: LLMSettings = {
  provider: 'openai', baseUrl: 'http://127.0.0.1:38087/v1', model: 'rhizome-test', temperature: null, maxTokens: 0,
  n: 3, noStream: false, apiKeySet: true, configured: true,
};

describe('settings form', () => {
  it('shows the settings, never a key', () => {
    const f = formOf(TEST);
    expect(f).toMatchObject({ provider: 'openai', model: 'rhizome-test', temperature: '', maxTokens: '', n: '3', stream: true, apiKey: '' });
    expect(formOf(null).provider).toBe('openai');
    expect(formChanged(f, TEST)).toBe(false);
    expect(formChanged({ ...f, model: 'other' }, TEST)).toBe(true);
  });

  it('makes the input: an empty key keeps the stored one', () => {
    const r = inputOf({ ...formOf(TEST), temperature: '0.7', maxTokens: '200' });
    expect(r.input).toEqual({
      provider: 'openai', baseUrl: 'http://127.0.0.1:38087/v1', model: 'rhizome-test', temperature: 0.7, maxTokens: 200,
      n: 3, noStream: false,
    });
    expect(inputOf({ ...formOf(TEST), apiKey: ' sk-1 ' }).input?.apiKey).toBe('sk-1');
    expect(inputOf({ ...formOf(TEST), apiKey: 'sk-1', clearApiKey: true }).input).toMatchObject({ clearApiKey: true });
    expect(inputOf({ ...formOf(TEST), apiKey: 'sk-1', clearApiKey: true }).input?.apiKey).toBeUndefined();
  });

  it('says what to fix', () => {
    expect(inputOf({ ...formOf(TEST), temperature: 'hot' }).error).toMatch(/^Temperature/);
    expect(inputOf({ ...formOf(TEST), n: '0' }).error).toMatch(/^Continuations/);
    expect(inputOf({ ...formOf(TEST), n: '65' }).error).toMatch(/1 to 64/);
    expect(inputOf({ ...formOf(TEST), maxTokens: '1.5' }).error).toMatch(/^Max tokens/);
    expect(inputOf({ ...formOf(TEST), baseUrl: 'ftp://x' }).error).toMatch(/^Base URL/);
    expect(inputOf({ ...formOf(TEST), provider: 'x' }).error).toMatch(/^Provider/);
    expect(inputOf({ ...formOf(TEST), model: ' ' }).error).toMatch(/^Model/);
  });
});

describe('settings form: every invalid field at once', () => {
  it('names each field that is wrong, keyed by field', () => {
    const r = inputOf({ ...formOf(TEST), baseUrl: 'ftp://x', model: ' ', temperature: 'hot', maxTokens: '-1', n: '0' });
    expect(r.input).toBeUndefined();
    expect(Object.keys(r.errors ?? {}).sort()).toEqual(['baseUrl', 'maxTokens', 'model', 'n', 'temperature']);
    expect(r.errors?.model).toMatch(/^Model/);
    expect(r.errors?.n).toMatch(/^Continuations/);
    // error is all of them, in the form's order.
    expect(r.error?.split('\n').map((l) => l.split(':')[0])).toEqual(['Base URL', 'Model', 'Temperature', 'Max tokens', 'Continuations']);
  });
  it('has no errors for a good form', () => {
    expect(inputOf(formOf(TEST)).errors).toBeUndefined();
  });
});

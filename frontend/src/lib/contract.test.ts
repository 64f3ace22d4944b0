// api.ts against the use cases the Go side binds and serves
// (generated/methods.ts, written from the Go areas by `make generate`): every
// use case has a wrapper, and no wrapper calls one that does not exist. The
// arguments each call passes are checked by the compiler against the
// generated signatures (api.ts's Args).
import { describe, expect, it } from 'vitest';
import { createApi, type Transport } from './api';
import { methods } from './generated/methods';

/** A transport that records every call and answers null, as Go does for nothing. */
function recorder() {
  const calls = new Set<string>();
  const transport: Transport = {
    mode: 'serve',
    async call(area, method) {
      calls.add(`${area}.${method}`);
      return null;
    },
    on: () => () => {},
    onFileDrop: () => null,
    openURL: () => {},
    async importBlobs() {
      calls.add('upload');
      return null;
    },
  };
  return { calls, transport };
}

/** Calls every wrapper of api (nested areas included) with placeholder arguments. */
async function callEveryWrapper(api: object, skip: Set<string>) {
  for (const [name, v] of Object.entries(api)) {
    if (skip.has(name)) continue;
    if (typeof v === 'function') await v(...Array.from({ length: 6 }, () => ({})));
    else if (v && typeof v === 'object') await callEveryWrapper(v, skip);
  }
}

describe('the contract', () => {
  it('wraps every use case the Go side binds, and only those', async () => {
    const { calls, transport } = recorder();
    const api = createApi(() => transport);
    // Events, file drops and links are the transport's, not use cases.
    await callEveryWrapper(api, new Set(['mode', 'on', 'onFileDrop', 'openURL']));
    const bound = Object.entries(methods).flatMap(([area, ms]) => ms.map((m) => `${area}.${m}`));
    expect(bound.length).toBeGreaterThan(30);
    expect(bound.filter((m) => !calls.has(m)), 'use cases api.ts does not wrap').toEqual([]);
    expect([...calls].filter((m) => m !== 'upload' && !bound.includes(m)), 'calls to no use case').toEqual([]);
  });
});

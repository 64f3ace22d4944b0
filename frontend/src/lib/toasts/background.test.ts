import { afterEach, describe, expect, it } from 'vitest';
import { createApi, type Transport } from '../api';
import { backgroundMessage, listenBackgroundErrors } from './background';
import { toasts } from './toasts.svelte';

// A transport that delivers the events sent to it, as Wails and the serve
// event stream do.
function eventTransport() {
  const subs = new Map<string, Set<(d: unknown) => void>>();
  const t: Transport = {
    mode: 'serve',
    call: async () => null,
    on(event, cb) {
      if (!subs.has(event)) subs.set(event, new Set());
      subs.get(event)!.add(cb);
      return () => subs.get(event)!.delete(cb);
    },
    onFileDrop: () => null,
    openURL: () => {},
    importBlobs: async () => null,
  };
  const send = (event: string, data: unknown) => subs.get(event)?.forEach((cb) => cb(data));
  return { t, send };
}

describe('background errors', () => {
  afterEach(() => {
    toasts.messages = [];
  });

  it('shows each background failure once, naming the work and what happens next', () => {
    const { t, send } = eventTransport();
    const off = listenBackgroundErrors(createApi(() => t));
    // What the relations queue sends when SQLite refuses its write.
    const err = 'store: unable to replace the relations of /work/acme-api: database or disk is full (13)';
    send('relations:error', err);
    send('relations:error', err); // every append retries: one toast, not one per append
    send('memory:error', 'memory: decay: interrupted');
    expect(toasts.messages).toEqual([backgroundMessage('relations:error', err), backgroundMessage('memory:error', 'memory: decay: interrupted')]);
    expect(toasts.messages[0]).toBe(
      'The relations across sessions were not derived: ' + err + ' (the next append or start derives them again).',
    );

    off();
    send('summary:error', 'store: unable to read the summary queue');
    expect(toasts.messages).toHaveLength(2);
  });

  it('says so when the error is empty', () => {
    expect(backgroundMessage('summary:error', ' ')).toBe(
      'The summaries could not be queued: no reason given (they are looked for again at the next start).',
    );
  });
});

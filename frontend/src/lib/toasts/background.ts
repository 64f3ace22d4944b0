// Errors of the work the app does in the background, where no view waits
// for an answer: the summaries' queue, the scheduled consolidation and the
// relations across sessions that appends leave to their queue. Each shows as
// a toast saying which work failed and what happens next.

import type { Api } from '../api';
import { toasts } from './toasts.svelte';

/** The background events, what failed, and what happens next. */
export const backgroundErrors = {
  'summary:error': ['The summaries could not be queued', 'they are looked for again at the next start'],
  'memory:error': ['The scheduled consolidation failed', 'it runs again at its next time'],
  'relations:error': ['The relations across sessions were not derived', 'the next append or start derives them again'],
} as const;

export type BackgroundEvent = keyof typeof backgroundErrors;

/** The toast for a background event's error. */
export function backgroundMessage(event: BackgroundEvent, error: string): string {
  const [what, next] = backgroundErrors[event];
  return `${what}: ${error.trim() || 'no reason given'} (${next}).`;
}

/** Shows the background errors api sends as toasts; returns the unsubscribe function. */
export function listenBackgroundErrors(api: Pick<Api, 'on'>): () => void {
  const offs = (Object.keys(backgroundErrors) as BackgroundEvent[]).map((event) =>
    api.on(event, (error) => toasts.fail(backgroundMessage(event, String(error ?? '')))),
  );
  return () => offs.forEach((off) => off());
}

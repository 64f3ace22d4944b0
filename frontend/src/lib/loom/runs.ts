// Authorship runs as the reading pane draws them: one span per stretch of
// text by one author, model characters in the model colour.

import type { Author, AuthorshipRun } from '../types';

export interface AuthorSpan {
  text: string;
  author: Author;
}

/**
 * The spans to draw for a node's runs: empty runs dropped, neighbours by the
 * same author joined. Their texts concatenate to the node's text.
 */
export function authorSpans(runs: readonly AuthorshipRun[] | null | undefined): AuthorSpan[] {
  const out: AuthorSpan[] = [];
  for (const r of runs ?? []) {
    if (!r.text) continue;
    const author: Author = r.author === 'model' ? 'model' : 'human';
    const last = out[out.length - 1];
    if (last && last.author === author) last.text += r.text;
    else out.push({ text: r.text, author });
  }
  return out;
}

/** How much of a node's text (in UTF-16 units, as a fraction 0..1) is still the model's. */
export function modelShare(runs: readonly AuthorshipRun[] | null | undefined): number {
  let model = 0;
  let all = 0;
  for (const r of runs ?? []) {
    all += r.text.length;
    if (r.author === 'model') model += r.text.length;
  }
  return all === 0 ? 0 : model / all;
}

/** Spans for text that has no runs yet (a node being written): all by one author. */
export function plainSpans(text: string, author: Author): AuthorSpan[] {
  return text ? [{ text, author }] : [];
}

// Text diffs as the history views show them: Loom.Diff's operations (or
// diffText's, for the fields of a knowledge-graph node) grouped into rows
// for the side-by-side view.

import type { DiffGranularity, DiffOp } from '../types';

/** A piece of one side of a row. */
export interface DiffSeg {
  op: DiffOp['op'];
  text: string;
}

/**
 * One line of the side-by-side view: the old text's pieces (equal, delete)
 * on the left, the new text's (equal, insert) on the right. Rows end where
 * both texts have a line break, so unchanged lines face each other; a
 * change spanning lines stays in one row (its cells wrap).
 */
export interface DiffRow {
  left: DiffSeg[];
  right: DiffSeg[];
  changed: boolean;
}

function push(side: DiffSeg[], op: DiffSeg['op'], text: string) {
  if (!text) return;
  const last = side[side.length - 1];
  if (last && last.op === op) last.text += text;
  else side.push({ op, text });
}

/** Groups diff operations into side-by-side rows (see DiffRow). */
export function sideBySideRows(ops: readonly DiffOp[]): DiffRow[] {
  const rows: DiffRow[] = [];
  let cur: DiffRow = { left: [], right: [], changed: false };
  for (const o of ops) {
    if (o.op === 'equal') {
      const lines = o.text.split('\n');
      lines.forEach((line, i) => {
        push(cur.left, 'equal', line);
        push(cur.right, 'equal', line);
        if (i < lines.length - 1) {
          rows.push(cur);
          cur = { left: [], right: [], changed: false };
        }
      });
    } else if (o.op === 'delete') {
      push(cur.left, 'delete', o.text);
      cur.changed ||= o.text !== '';
    } else {
      push(cur.right, 'insert', o.text);
      cur.changed ||= o.text !== '';
    }
  }
  if (cur.left.length || cur.right.length || rows.length === 0) rows.push(cur);
  return rows;
}

/** Characters inserted and deleted (user-perceived characters). */
export function diffStats(ops: readonly DiffOp[]): { inserted: number; deleted: number } {
  let inserted = 0;
  let deleted = 0;
  for (const o of ops) {
    if (o.op === 'insert') inserted += tokens(o.text, 'char').length;
    else if (o.op === 'delete') deleted += tokens(o.text, 'char').length;
  }
  return { inserted, deleted };
}

/** The old (equal + delete) or new (equal + insert) text of a diff. */
export function sideText(ops: readonly DiffOp[], side: 'old' | 'new'): string {
  const skip = side === 'old' ? 'insert' : 'delete';
  return ops.filter((o) => o.op !== skip).map((o) => o.text).join('');
}

const graphemes =
  typeof Intl !== 'undefined' && 'Segmenter' in Intl ? new Intl.Segmenter(undefined, { granularity: 'grapheme' }) : null;

/** The units a diff compares: user-perceived characters, or words, spaces and punctuation marks. */
export function tokens(s: string, granularity: DiffGranularity): string[] {
  if (granularity === 'word') return s.match(/\s+|[\p{L}\p{N}\p{M}_'’-]+|[^\s\p{L}\p{N}\p{M}_]/gu) ?? [];
  if (graphemes) return Array.from(graphemes.segment(s), (g) => g.segment);
  return Array.from(s);
}

/** Above this many cells the middle of a diff is shown as one replacement. */
const MAX_CELLS = 4_000_000;

/**
 * Diffs two texts by characters or words (a longest common subsequence over
 * what is left once the common start and end are set aside). The same shape
 * as Loom.Diff: a replacement is a delete then an insert. For texts Go does
 * not diff: the fields of a knowledge-graph node.
 */
export function diffText(a: string, b: string, granularity: DiffGranularity = 'char'): DiffOp[] {
  const x = tokens(a, granularity);
  const y = tokens(b, granularity);
  let pre = 0;
  while (pre < x.length && pre < y.length && x[pre] === y[pre]) pre++;
  let suf = 0;
  while (suf < x.length - pre && suf < y.length - pre && x[x.length - 1 - suf] === y[y.length - 1 - suf]) suf++;
  const xs = x.slice(pre, x.length - suf);
  const ys = y.slice(pre, y.length - suf);

  const out: DiffOp[] = [];
  const emit = (op: DiffOp['op'], text: string) => {
    if (!text) return;
    const last = out[out.length - 1];
    if (last && last.op === op) last.text += text;
    else out.push({ op, text });
  };
  emit('equal', x.slice(0, pre).join(''));

  const n = xs.length;
  const m = ys.length;
  if ((n + 1) * (m + 1) > MAX_CELLS) {
    emit('delete', xs.join(''));
    emit('insert', ys.join(''));
  } else {
    // lcs[i*(m+1)+j]: the longest common subsequence of xs[i:] and ys[j:].
    const w = m + 1;
    const lcs = new Uint32Array((n + 1) * w);
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        lcs[i * w + j] = xs[i] === ys[j] ? lcs[(i + 1) * w + j + 1] + 1 : Math.max(lcs[(i + 1) * w + j], lcs[i * w + j + 1]);
      }
    }
    // Walk it; a run of changes gives its deletions, then its insertions.
    let del = '';
    let ins = '';
    const flush = () => {
      emit('delete', del);
      emit('insert', ins);
      del = ins = '';
    };
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && xs[i] === ys[j]) {
        flush();
        emit('equal', xs[i]);
        i++;
        j++;
      } else if (j >= m || (i < n && lcs[(i + 1) * w + j] >= lcs[i * w + j + 1])) {
        del += xs[i++];
      } else {
        ins += ys[j++];
      }
    }
    flush();
  }
  emit('equal', x.slice(x.length - suf).join(''));
  return out;
}

/** A JSON value of a node field as text: strings as they are, anything else as indented JSON. */
export function valueText(v: unknown): string {
  if (v === undefined) return '';
  if (typeof v === 'string') return v;
  return JSON.stringify(v, null, 2) ?? String(v);
}

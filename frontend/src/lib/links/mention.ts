// The [[ of a mention being typed: what is typed after it (the picker's
// query) and the text once an item is chosen ([[uri|title]], as
// markdown.ts renders and backend/link reads mentions).

import { isItemTarget } from '../node/markdown';

/** The [[query being typed just before the caret (caret: a UTF-16 offset), or null. */
export function openMention(text: string, caret: number): { start: number; query: string } | null {
  const m = /\[\[([^[\]\n|]{0,200})$/.exec(text.slice(0, caret));
  return m ? { start: caret - m[0].length, query: m[1] } : null;
}

/** A title as a mention's alias: no brackets, bars or line breaks, at most 120 characters. */
export function aliasOf(title: string): string {
  const t = title.replace(/[[\]|\n\r]+/g, ' ').replace(/\s+/g, ' ').trim();
  return t.length > 120 ? `${t.slice(0, 119)}…` : t;
}

/**
 * text with the [[query from start to caret replaced by a mention of uri
 * titled title; the caret after it.
 */
export function insertMention(text: string, start: number, caret: number, uri: string, title: string): { text: string; caret: number } {
  const alias = aliasOf(title);
  const m = alias ? `[[${uri}|${alias}]]` : `[[${uri}]]`;
  return { text: text.slice(0, start) + m + text.slice(caret), caret: start + m.length };
}

/** A piece of plain text: text, or a mention of item uri shown as label. */
export interface MentionPart {
  text: string;
  uri?: string;
  label?: string;
}

/**
 * text split into plain pieces and mentions ([[item|alias]] of an item,
 * as markdown.ts renders them; [[queries]] stay text), for text shown as
 * text (a loom node's authored runs).
 */
export function mentionParts(text: string): MentionPart[] {
  const out: MentionPart[] = [];
  let last = 0;
  for (const m of text.matchAll(/\[\[([^[\]\n|]{1,1024})(?:\|([^[\]\n]{0,1024}))?\]\]/g)) {
    const target = m[1].trim();
    if (!isItemTarget(target)) continue;
    if (m.index > last) out.push({ text: text.slice(last, m.index) });
    out.push({ text: m[0], uri: target, label: (m[2] ?? '').trim() || target });
    last = m.index + m[0].length;
  }
  if (last < text.length || !out.length) out.push({ text: text.slice(last) });
  return out;
}

/** text with each mention of an item written as what it shows ([[uri|alias]] as alias), for titles shown as text. */
export function plainMentions(text: string): string {
  return mentionParts(text)
    .map((p) => (p.uri ? p.label : p.text))
    .join('')
    .replace(/\[\[(?:rhizome:[a-z]+\/|https?:\/\/)[^[\]\n|]*\|([^[\]\n]*)$/i, '$1'); // a title cut inside a mention
}

// File changes a tool call makes, as diffs for the node panel: Codex's
// apply_patch (its "*** Begin Patch" format, as a custom tool's input, an
// exec_command heredoc or an older shell argv; GitHub Copilot CLI's
// apply_patch too), Claude Code's Edit, MultiEdit and Write, Qwen Code's edit
// and write_file, and Copilot CLI's edit and create. Pure text in, text out:
// nothing here is rendered as HTML.

import type { DiffOp } from '../types';
import { diffText } from '../diff/ops';

/** One file a tool call changes: what happens to it and the change as diff operations. */
export interface FileChange {
  path: string;
  action: 'add' | 'update' | 'delete' | 'edit' | 'write';
  /** The new path of a moved file. */
  moveTo?: string;
  ops: DiffOp[];
  inserted: number;
  deleted: number;
}

const BEGIN = '*** Begin Patch';
const END = '*** End Patch';

/**
 * Parses an apply_patch text (the part from "*** Begin Patch" to "*** End
 * Patch"; anything around it is ignored). Hunk lines starting with "+", "-"
 * and " " become insert, delete and equal operations, line by line; "@@"
 * lines separate hunks (kept as equal text). Null when text holds no patch.
 */
export function parseApplyPatch(text: string): FileChange[] | null {
  const start = text.indexOf(BEGIN);
  if (start < 0) return null;
  const end = text.indexOf(END, start);
  const body = text.slice(start + BEGIN.length, end < 0 ? undefined : end);
  const files: FileChange[] = [];
  let cur: FileChange | null = null;
  const push = (op: DiffOp['op'], line: string) => {
    if (!cur) return;
    const last = cur.ops[cur.ops.length - 1];
    if (last && last.op === op) last.text += `${line}\n`;
    else cur.ops.push({ op, text: `${line}\n` });
    if (op === 'insert') cur.inserted++;
    if (op === 'delete') cur.deleted++;
  };
  for (const line of body.split('\n')) {
    const header = /^\*\*\* (Add|Update|Delete) File: (.*)$/.exec(line);
    if (header) {
      cur = { path: header[2].trim(), action: header[1].toLowerCase() as FileChange['action'], ops: [], inserted: 0, deleted: 0 };
      files.push(cur);
      continue;
    }
    const move = /^\*\*\* Move to: (.*)$/.exec(line);
    if (move && cur) {
      cur.moveTo = move[1].trim();
      continue;
    }
    if (line === '*** End of File' || !cur) continue;
    if (line.startsWith('@@')) push('equal', line);
    else if (line.startsWith('+')) push('insert', line.slice(1));
    else if (line.startsWith('-')) push('delete', line.slice(1));
    else if (line.startsWith(' ')) push('equal', line.slice(1));
    else if (line !== '') push('equal', line);
  }
  return files.length ? files : null;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function edit(path: string, before: string, after: string, action: FileChange['action']): FileChange {
  const ops = diffText(before, after, 'word');
  let inserted = 0;
  let deleted = 0;
  for (const o of ops) {
    // Lines touched: a piece within a line counts as one.
    const lines = Math.max(1, o.text.replace(/^\n|\n$/g, '').split('\n').length);
    if (o.op === 'insert') inserted += lines;
    if (o.op === 'delete') deleted += lines;
  }
  return { path, action, ops, inserted, deleted };
}

/**
 * The file changes of a tool call named name with arguments args (its JSON
 * text, as the node panel gets it), or null when it changes no file this
 * module knows how to show.
 */
export function toolChanges(name: string | undefined, args: string | undefined): FileChange[] | null {
  if (!args) return null;
  let v: unknown;
  try {
    v = JSON.parse(args);
  } catch {
    v = args; // a custom tool's input may come as it is
  }
  if (typeof v === 'string') return parseApplyPatch(v);
  if (!v || typeof v !== 'object') return null;
  const a = v as Record<string, unknown>;
  // Claude Code's file tools, and Qwen Code's (edit, write_file: the same arguments).
  const path = str(a.file_path) ?? str(a.path) ?? '';
  if ((name === 'Edit' || name === 'edit') && str(a.old_string) !== undefined && str(a.new_string) !== undefined) {
    return [edit(path, a.old_string as string, a.new_string as string, 'edit')];
  }
  if (name === 'MultiEdit' && Array.isArray(a.edits)) {
    const out = a.edits
      .filter((e): e is Record<string, unknown> => !!e && typeof e === 'object')
      .map((e) => edit(path, str(e.old_string) ?? '', str(e.new_string) ?? '', 'edit'));
    return out.length ? out : null;
  }
  if ((name === 'Write' || name === 'write_file') && str(a.content) !== undefined) {
    return [edit(path, '', a.content as string, 'write')];
  }
  // GitHub Copilot CLI's edit {path, old_str, new_str} and create {path,
  // file_text} (a new file: create fails on one that exists).
  if (name === 'edit' && str(a.old_str) !== undefined && str(a.new_str) !== undefined) {
    return [edit(path, a.old_str as string, a.new_str as string, 'edit')];
  }
  if (name === 'create' && str(a.file_text) !== undefined) {
    return [edit(path, '', a.file_text as string, 'add')];
  }
  // Codex: apply_patch's input, a heredoc in a command, an argv.
  for (const key of ['input', 'patch', 'cmd', 'command']) {
    const s = a[key];
    if (typeof s === 'string') {
      const p = parseApplyPatch(s);
      if (p) return p;
    } else if (Array.isArray(s)) {
      const p = parseApplyPatch(s.filter((x) => typeof x === 'string').join('\n'));
      if (p) return p;
    }
  }
  return null;
}

// The one line a collapsed tool call shows: what it does, read from its
// arguments as the agents write them (pi's bash/read/edit, Claude Code's
// Bash/Read/Grep/TodoWrite/Agent…, Codex's exec_command/shell/update_plan),
// not the first line of its JSON. Pure: text in, text out (shown as text).

/** Argument keys that say what a call does, most telling first. */
const KEYS = ['command', 'cmd', 'pattern', 'query', 'url', 'file_path', 'notebook_path', 'path', 'description', 'prompt', 'message', 'targets'];

/** Cuts s to max characters on one line: its end for a path (the file's name tells most). */
function oneLine(s: string, max: number, path = false): string {
  const line = s.replace(/\s+/g, ' ').trim();
  if (line.length <= max) return line;
  return path ? `…${line.slice(line.length - max + 1)}` : `${line.slice(0, max - 1)}…`;
}

/** Path-valued argument keys. */
const PATHS = new Set(['file_path', 'notebook_path', 'path']);

/** A command without the "cd <folder> && " agents put before it to run it in the project. */
const withoutCd = (cmd: string) => cmd.replace(/^\s*cd\s+("[^"]*"|'[^']*'|\S+)\s*&&\s*/, '');

/** "3 todos: 1 done, 1 in progress" of a todo or plan list, or ''. */
function listPeek(items: unknown, noun: string): string {
  if (!Array.isArray(items)) return '';
  const by: Record<string, number> = {};
  for (const it of items) {
    const s = it && typeof it === 'object' ? (it as { status?: unknown }).status : undefined;
    if (typeof s === 'string') by[s] = (by[s] ?? 0) + 1;
  }
  const parts = [];
  if (by.completed) parts.push(`${by.completed} done`);
  if (by.in_progress) parts.push(`${by.in_progress} in progress`);
  const n = items.length;
  return `${n} ${noun}${n === 1 ? '' : 's'}${parts.length ? `: ${parts.join(', ')}` : ''}`;
}

/**
 * The peek of a call of tool name with arguments args (JSON text, as
 * stored): its command, file, pattern, address, query or description; a
 * todo list or plan counted; else the first line of args. At most max
 * characters.
 */
export function callPeek(name: string | undefined, args: string | undefined, max = 90): string {
  const raw = args ?? '';
  let a: unknown;
  try {
    a = JSON.parse(raw);
  } catch {
    a = undefined;
  }
  if (a && typeof a === 'object' && !Array.isArray(a)) {
    const o = a as Record<string, unknown>;
    const list = listPeek(o.todos, 'todo') || listPeek(o.plan, 'step');
    if (list) return list;
    for (const k of KEYS) {
      const v = o[k];
      if (typeof v === 'string' && v.trim()) {
        // A search names where it looks too: "TODO in src/".
        const where = (k === 'pattern' || k === 'query') && typeof o.path === 'string' && o.path ? ` in ${o.path}` : '';
        const text = k === 'command' || k === 'cmd' ? withoutCd(v) || v : v;
        return oneLine(text + where, max, PATHS.has(k));
      }
      if (Array.isArray(v) && v.length && v.every((x) => typeof x === 'string')) {
        // Codex's shell: ["bash", "-lc", "ls -la"] reads as its script.
        const argv = v as string[];
        const script = argv.length === 3 && /(^|\/)(ba|z)?sh$/.test(argv[0]) && /^-l?c$/.test(argv[1]) ? argv[2] : argv.join(' ');
        return oneLine(script, max);
      }
    }
  }
  const first = raw.split('\n').find((l) => l.trim()) ?? '';
  return oneLine(first, max);
}

/** The one line a collapsed text shows (thinking, a tool's output, injected text): its first line that is not blank, cut to max characters. */
export function firstLine(s: string | undefined, max = 90): string {
  const line = (s ?? '').split('\n').find((l) => l.trim()) ?? '';
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

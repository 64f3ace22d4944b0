// Claude Code's records of a slash command typed by the person: the
// command (<command-name>/compact</command-name><command-args>…), what it
// printed (<local-command-stdout>, <local-command-stderr>) and the caveat
// it puts before them. Shown as what they are, not as their markup. Pure:
// text in, text out (rendered as text).

export type CommandLine =
  | { kind: 'command'; command: string }
  | { kind: 'output'; text: string; stderr: boolean }
  | { kind: 'caveat'; text: string };

/** The inner text of the first <tag>…</tag> of s, or null. */
function inner(s: string, tag: string): string | null {
  const open = `<${tag}>`;
  const i = s.indexOf(open);
  if (i < 0) return null;
  const j = s.indexOf(`</${tag}>`, i + open.length);
  return (j < 0 ? s.slice(i + open.length) : s.slice(i + open.length, j)).trim();
}

/** What a message's text records when it is one of Claude Code's command lines, else null. */
export function commandLine(text: string | undefined): CommandLine | null {
  const s = (text ?? '').trim();
  if (s.startsWith('<command-name>') || s.startsWith('<command-message>')) {
    const name = inner(s, 'command-name') ?? `/${inner(s, 'command-message') ?? ''}`;
    const args = inner(s, 'command-args') ?? '';
    return { kind: 'command', command: args ? `${name} ${args}` : name };
  }
  for (const [tag, stderr] of [
    ['local-command-stdout', false],
    ['local-command-stderr', true],
  ] as const) {
    if (s.startsWith(`<${tag}>`)) return { kind: 'output', text: inner(s, tag) ?? '', stderr };
  }
  if (s.startsWith('<local-command-caveat>')) return { kind: 'caveat', text: inner(s, 'local-command-caveat') ?? '' };
  return null;
}

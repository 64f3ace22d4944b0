import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { callPeek } from './callPeek';

const root = join(__dirname, '../../../../backend');

/** Every JSON object of the .jsonl files below dir that pick keeps. */
function lines(dir: string, pick: (o: any) => boolean): any[] {
  const out: any[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...lines(p, pick));
    else if (name.endsWith('.jsonl'))
      for (const l of readFileSync(p, 'utf8').split('\n')) {
        try {
          const o = JSON.parse(l);
          if (pick(o)) out.push(o);
        } catch {
          /* not an object */
        }
      }
  }
  return out;
}

describe('callPeek', () => {
  it('shows what a call does, not its JSON', () => {
    expect(callPeek('Bash', JSON.stringify({ command: 'go test ./...', description: 'Run the tests' }))).toBe('go test ./...');
    expect(callPeek('Read', JSON.stringify({ file_path: '/w/main.go', limit: 40 }))).toBe('/w/main.go');
    expect(callPeek('Grep', JSON.stringify({ pattern: 'TODO', path: 'src/' }))).toBe('TODO in src/');
    expect(callPeek('exec_command', JSON.stringify({ cmd: 'ls -la', workdir: '/w' }))).toBe('ls -la');
    expect(callPeek('shell', JSON.stringify({ command: ['bash', '-lc', 'cat main.py'] }))).toBe('cat main.py');
    expect(callPeek('Agent', JSON.stringify({ description: 'Review the handler', prompt: 'Review…', subagent_type: 'general-purpose' }))).toBe(
      'Review the handler',
    );
  });
  it("keeps a long path's end and drops the cd into the project before a command", () => {
    const path = '/Users/someone/workspaces/pi-mono/packages/coding-agent/src/core/sdk.ts';
    expect(callPeek('read', JSON.stringify({ path }), 40)).toBe(`…${path.slice(path.length - 39)}`);
    expect(callPeek('bash', JSON.stringify({ command: 'cd /Users/someone/workspaces/pi-mono && grep -n x main.ts' }))).toBe('grep -n x main.ts');
    expect(callPeek('bash', JSON.stringify({ command: 'cd "/w/my project" && ls' }))).toBe('ls');
    expect(callPeek('bash', JSON.stringify({ command: 'cd /tmp' }))).toBe('cd /tmp');
  });
  it('counts a todo list or a plan', () => {
    const todos = [
      { content: 'a', status: 'completed' },
      { content: 'b', status: 'in_progress' },
      { content: 'c', status: 'pending' },
    ];
    expect(callPeek('TodoWrite', JSON.stringify({ todos }))).toBe('3 todos: 1 done, 1 in progress');
    expect(callPeek('update_plan', JSON.stringify({ plan: [{ step: 'x', status: 'pending' }] }))).toBe('1 step');
  });
  it('falls back to the first line of what is not an object of known keys, cut to max', () => {
    expect(callPeek('custom', '{"zzz": 1}')).toBe('{"zzz": 1}');
    expect(callPeek('apply_patch', '*** Begin Patch\n*** Update File: a.py')).toBe('*** Begin Patch');
    expect(callPeek('Bash', JSON.stringify({ command: 'x'.repeat(200) }), 20)).toBe(`${'x'.repeat(19)}…`);
    expect(callPeek(undefined, undefined)).toBe('');
  });
  it('reads the real calls of the Claude Code and Codex fixtures as something other than JSON', () => {
    const claude = lines(join(root, 'claudecode/testdata/claude-home'), (o) => o.type === 'assistant')
      .flatMap((o) => (Array.isArray(o.message?.content) ? o.message.content : []))
      .filter((b: any) => b.type === 'tool_use');
    const codex = lines(join(root, 'codex/testdata/codex-home'), (o) => o.payload?.type === 'function_call');
    expect(claude.length).toBeGreaterThan(2);
    expect(codex.length).toBeGreaterThan(2);
    for (const b of claude) expect(callPeek(b.name, JSON.stringify(b.input)), b.name).not.toMatch(/^\{/);
    for (const c of codex) expect(callPeek(c.payload.name, c.payload.arguments), c.payload.name).not.toMatch(/^\{/);
  });
});

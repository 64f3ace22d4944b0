import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { commandLine } from './commands';

/** The string contents of the user lines of the .jsonl files below dir. */
function userTexts(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...userTexts(p));
    else if (name.endsWith('.jsonl'))
      for (const l of readFileSync(p, 'utf8').split('\n')) {
        try {
          const o = JSON.parse(l);
          if (o.type === 'user' && typeof o.message?.content === 'string') out.push(o.message.content);
        } catch {
          /* not an object */
        }
      }
  }
  return out;
}

describe('commandLine', () => {
  it('reads the /compact the real Claude Code wrote, its output and its caveat', () => {
    const texts = userTexts(join(__dirname, '../../../../backend/claudecode/testdata/claude-home'));
    const read = texts.map(commandLine).filter((c) => c !== null);
    expect(read).toContainEqual({ kind: 'command', command: '/compact' });
    expect(read).toContainEqual({ kind: 'output', text: 'Compacted', stderr: false });
    expect(read.some((c) => c.kind === 'caveat' && c.text.startsWith('Caveat: The messages below'))).toBe(true);
  });
  it('keeps a command’s arguments and tells stderr from stdout', () => {
    expect(commandLine('<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args>opus</command-args>')).toEqual({
      kind: 'command',
      command: '/model opus',
    });
    expect(commandLine('<local-command-stderr>Error: no such command</local-command-stderr>')).toEqual({
      kind: 'output',
      text: 'Error: no such command',
      stderr: true,
    });
  });
  it('leaves any other text alone', () => {
    expect(commandLine('Continue from where you left off.')).toBeNull();
    expect(commandLine('please run <command-name>x</command-name>')).toBeNull();
    expect(commandLine(undefined)).toBeNull();
  });
});

import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseApplyPatch, toolChanges } from './patch';

// Lines of the real logs the real programs wrote (backend/*/testdata).
const root = join(__dirname, '../../../../backend');
function lines(dir: string, match: (o: any) => boolean): any[] {
  const out: any[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.jsonl'))
        for (const l of readFileSync(p, 'utf8').split('\n')) {
          try {
            const o = JSON.parse(l);
            if (match(o)) out.push(o);
          } catch {
            /* not a whole line */
          }
        }
    }
  };
  walk(dir);
  return out;
}

describe('patch', () => {
  it("reads Codex's real apply_patch calls as diffs", () => {
    const calls = lines(join(root, 'codex/testdata/codex-home'), (o) => o.payload?.type === 'custom_tool_call' && o.payload?.name === 'apply_patch');
    expect(calls.length).toBeGreaterThan(0);
    const c = toolChanges('apply_patch', JSON.stringify(calls[0].payload.input));
    expect(c).not.toBeNull();
    expect(c![0]).toMatchObject({ path: 'main.py', action: 'update', inserted: 1, deleted: 1 });
    expect(c![0].ops.find((o) => o.op === 'delete')?.text).toBe('print(total([1, 2, 3]))\n');
    expect(c![0].ops.find((o) => o.op === 'insert')?.text).toBe('print("total:", total([1, 2, 3]))\n');
  });

  it("reads Claude Code's real Edit calls as diffs", () => {
    const uses = lines(join(root, 'claudecode/testdata/claude-home'), (o) => o.type === 'assistant' && Array.isArray(o.message?.content))
      .flatMap((o) => o.message.content)
      .filter((b: any) => b.type === 'tool_use' && b.name === 'Edit');
    expect(uses.length).toBeGreaterThan(0);
    const c = toolChanges('Edit', JSON.stringify(uses[0].input));
    expect(c).toHaveLength(1);
    expect(c![0].path).toBe(uses[0].input.file_path);
    const before = c![0].ops.filter((o) => o.op !== 'insert').map((o) => o.text).join('');
    const after = c![0].ops.filter((o) => o.op !== 'delete').map((o) => o.text).join('');
    expect(before).toBe(uses[0].input.old_string);
    expect(after).toBe(uses[0].input.new_string);
    expect(c![0].inserted).toBeGreaterThan(0);
  });

  it("reads Qwen Code's real edit and write_file calls as diffs", () => {
    const calls = lines(join(root, 'qwen/testdata/qwen-home'), (o) => o.type === 'assistant' && Array.isArray(o.message?.parts))
      .flatMap((o) => o.message.parts)
      .map((p: any) => p.functionCall)
      .filter((c: any) => c && (c.name === 'edit' || c.name === 'write_file'));
    const edit = calls.find((c: any) => c.name === 'edit');
    const write = calls.find((c: any) => c.name === 'write_file');
    expect(edit && write).toBeTruthy();
    const e = toolChanges('edit', JSON.stringify(edit.args));
    expect(e).toHaveLength(1);
    expect(e![0]).toMatchObject({ path: edit.args.file_path, action: 'edit' });
    expect(e![0].ops.filter((o) => o.op !== 'delete').map((o) => o.text).join('')).toBe(edit.args.new_string);
    const w = toolChanges('write_file', JSON.stringify(write.args));
    expect(w).toHaveLength(1);
    expect(w![0]).toMatchObject({ path: write.args.file_path, action: 'write', deleted: 0 });
    expect(w![0].inserted).toBeGreaterThan(0);
  });

  it("reads GitHub Copilot CLI's real edit and create calls as diffs", () => {
    const calls = lines(join(root, 'copilot/testdata/copilot-home'), (o) => o.type === 'assistant.message' && Array.isArray(o.data?.toolRequests))
      .flatMap((o) => o.data.toolRequests)
      .filter((c: any) => c.name === 'edit' || c.name === 'create');
    const edit = calls.find((c: any) => c.name === 'edit');
    const create = calls.find((c: any) => c.name === 'create');
    expect(edit && create).toBeTruthy();
    const e = toolChanges('edit', JSON.stringify(edit.arguments));
    expect(e).toHaveLength(1);
    expect(e![0]).toMatchObject({ path: edit.arguments.path, action: 'edit' });
    expect(e![0].ops.filter((o) => o.op !== 'insert').map((o) => o.text).join('')).toBe(edit.arguments.old_str);
    expect(e![0].ops.filter((o) => o.op !== 'delete').map((o) => o.text).join('')).toBe(edit.arguments.new_str);
    expect(e![0].inserted).toBeGreaterThan(0);
    const c = toolChanges('create', JSON.stringify(create.arguments));
    expect(c).toHaveLength(1);
    expect(c![0]).toMatchObject({ path: create.arguments.path, action: 'add', deleted: 0 });
    expect(c![0].ops.map((o) => o.text).join('')).toBe(create.arguments.file_text);
    // A create without its text, or another tool's edit, is no Copilot diff.
    expect(toolChanges('create', JSON.stringify({ path: 'a.md' }))).toBeNull();
    expect(toolChanges('edit', JSON.stringify({ path: 'a.md', oldText: 'a', newText: 'b' }))).toBeNull();
  });

  it('reads added, deleted and moved files, a heredoc and an argv', () => {
    const p = '*** Begin Patch\n*** Add File: a.txt\n+one\n+two\n*** Update File: b.go\n*** Move to: c.go\n@@ func x\n keep\n-old\n+new\n*** Delete File: d\n*** End Patch';
    const c = parseApplyPatch(p)!;
    expect(c.map((f) => [f.path, f.action, f.moveTo, f.inserted, f.deleted])).toEqual([
      ['a.txt', 'add', undefined, 2, 0],
      ['b.go', 'update', 'c.go', 1, 1],
      ['d', 'delete', undefined, 0, 0],
    ]);
    expect(toolChanges('exec_command', JSON.stringify({ cmd: `apply_patch <<'EOF'\n${p}\nEOF` }))).toHaveLength(3);
    expect(toolChanges('shell', JSON.stringify({ command: ['apply_patch', p] }))).toHaveLength(3);
  });

  it('leaves other calls and broken input alone', () => {
    expect(toolChanges('exec_command', JSON.stringify({ cmd: 'ls -la' }))).toBeNull();
    expect(toolChanges('Bash', '{"command":"echo *** Begin"}')).toBeNull();
    expect(toolChanges('Edit', '{not json')).toBeNull();
    expect(toolChanges(undefined, undefined)).toBeNull();
    expect(parseApplyPatch('*** Begin Patch\n*** End Patch')).toBeNull();
  });
});

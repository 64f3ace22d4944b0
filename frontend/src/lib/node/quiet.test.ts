import { describe, expect, it } from 'vitest';
import { isQuiet, messageRows, quietSummary } from './quiet';
import type { EntryView } from '../types';

const e = (seq: number, type: string, o: Partial<EntryView> = {}) => ({ seq, id: `e${seq}`, type, timestamp: '', line: seq, blocks: [], ...o }) as EntryView;

describe('quiet lines', () => {
  it('are Claude Code and Codex lines with nothing to read, never pi lines or messages', () => {
    expect(isQuiet(e(1, 'claude:queue-operation', { subtype: 'enqueue' }))).toBe(true);
    expect(isQuiet(e(2, 'codex:event_msg', { subtype: 'task_started' }))).toBe(true);
    expect(isQuiet(e(3, 'model_change'))).toBe(false);
    expect(isQuiet(e(4, 'message', { role: 'user', blocks: [{ type: 'text', text: 'hi' }] as EntryView['blocks'] }))).toBe(false);
    expect(isQuiet(e(5, 'claude:system', { blocks: [{ type: 'text', text: 'API Error: 400' }] as EntryView['blocks'] }))).toBe(false);
    expect(isQuiet(e(6, 'codex:compacted', { summary: 'What was done' }))).toBe(false);
    expect(isQuiet(e(7, 'qwen:ui_telemetry', { subtype: 'qwen-code.api_response' }))).toBe(true);
    expect(isQuiet(e(8, 'qwen:attribution_snapshot'))).toBe(true);
  });
  it('make one row of a run of two or more, in order, with what it holds', () => {
    const user = e(1, 'message', { role: 'user', blocks: [{ type: 'text', text: 'Trigger the API error now.' }] as EntryView['blocks'] });
    const rows = messageRows([
      e(0, 'claude:last-prompt'),
      user,
      e(2, 'claude:queue-operation', { subtype: 'enqueue' }),
      e(3, 'claude:queue-operation', { subtype: 'enqueue' }),
      e(4, 'claude:mode'),
      e(5, 'message', { role: 'assistant', blocks: [{ type: 'text', text: 'Done.' }] as EntryView['blocks'] }),
      e(6, 'codex:turn_context'),
      e(7, 'codex:event_msg', { subtype: 'task_started' }),
    ]);
    expect(rows.map((r) => ('quiet' in r ? r.quiet.map((x) => x.seq) : r.entry.seq))).toEqual([0, 1, [2, 3, 4], 5, [6, 7]]);
    const run = rows[2];
    expect('quiet' in run && quietSummary(run.quiet)).toBe('3 lines: queue operation enqueue ×2, mode');
    const codex = rows[4];
    expect('quiet' in codex && quietSummary(codex.quiet)).toBe('2 lines: turn context, event task started');
  });
});

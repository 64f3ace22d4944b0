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
    expect(isQuiet(e(9, 'copilot:session.usage_record', { subtype: 'user' }))).toBe(true);
    expect(isQuiet(e(10, 'copilot:model.messages_snapshot'))).toBe(true);
    expect(isQuiet(e(11, 'message', { role: 'custom', blocks: [{ type: 'text', text: 'You are the GitHub Copilot CLI' }] as EntryView['blocks'] }))).toBe(false);
  });
  it("collapse Copilot CLI's turn, usage, tool start and model trace events, named by their types", () => {
    const call = e(3, 'message', { role: 'assistant', blocks: [{ type: 'toolCall', name: 'bash', arguments: '{"command":"wc -l ledger.py"}' }] as EntryView['blocks'] });
    const rows = messageRows([
      e(0, 'message', { role: 'user', blocks: [{ type: 'text', text: 'How many lines does ledger.py have?' }] as EntryView['blocks'] }),
      e(1, 'copilot:assistant.turn_start'),
      e(2, 'copilot:session.usage_record', { subtype: 'user' }),
      call,
      e(4, 'copilot:tool.execution_start', { subtype: 'bash' }),
      e(5, 'copilot:tool.execution_start', { subtype: 'view' }),
      e(6, 'copilot:model.model_call_success'),
      e(7, 'copilot:subagent.started', { subtype: 'explore' }),
    ]);
    expect(rows.map((r) => ('quiet' in r ? r.quiet.map((x) => x.seq) : r.entry.seq))).toEqual([0, [1, 2], 3, [4, 5, 6, 7]]);
    expect('quiet' in rows[1] && quietSummary(rows[1].quiet)).toBe('2 lines: turn start, token usage user');
    expect('quiet' in rows[3] && quietSummary(rows[3].quiet)).toBe('4 lines: tool start bash, tool start view, model call success, subagent started explore');
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

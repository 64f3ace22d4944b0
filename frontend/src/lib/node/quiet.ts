// Claude Code's, Qwen Code's, Copilot CLI's and Codex's bookkeeping lines
// (queue operations, the last prompt, mode, token counts, telemetry, task
// events, turn starts and ends, model call traces, turn contexts…) carry no
// text a person reads: a run of them is one collapsed row in the node panel, not a
// row each between the messages. They are all still there, one click away.
import type { EntryView } from '../types';

/** A row of the message list: an entry, or a run of two or more quiet ones. */
export type MessageRow = { entry: EntryView } | { quiet: EntryView[] };

/** The line type an entry is shown under: its role for a message, else its type. */
export const lineType = (e: EntryView) => (e.type === 'message' ? (e.role ?? 'message') : e.type);

/** The prefix of a format's own line types (Claude Code, Codex, Qwen Code, Copilot CLI). */
const OWN = /^(claude|codex|qwen|copilot):/;

/** Whether e is a Claude Code, Qwen Code, Copilot CLI or Codex line with nothing to read: no text, summary, image or call. */
export function isQuiet(e: EntryView): boolean {
  if (!OWN.test(lineType(e)) || e.summary || e.label) return false;
  return e.blocks.every((b) => b.type !== 'image' && b.type !== 'toolCall' && !(b.text ?? '').trim() && !(b.arguments ?? '').trim());
}

/** The headings of line types (a message by its role). */
const TITLES: Record<string, string> = {
  user: 'User',
  assistant: 'Assistant',
  toolResult: 'Tool result',
  bashExecution: 'Bash',
  custom: 'Custom message',
  custom_message: 'Custom message',
  compaction: 'Compaction',
  branch_summary: 'Branch summary',
  compactionSummary: 'Compaction summary',
  branchSummary: 'Branch summary',
  model_change: 'Model change',
  thinking_level_change: 'Thinking level',
  session_info: 'Session info',
  label: 'Label',
  // Claude Code and Codex lines kept as they are.
  system: 'System',
  attachment: 'Attachment',
  progress: 'Progress',
  'claude:system': 'System',
  'claude:attachment': 'Attachment',
  'claude:progress': 'Progress',
  'codex:event_msg': 'Event',
  'codex:turn_context': 'Turn context',
  'codex:session_meta': 'Session meta',
  'codex:compacted': 'Compaction',
  'codex:token_usage_record': 'Token usage',
  'codex:world_state': 'World state',
  'qwen:ui_telemetry': 'Telemetry',
  'qwen:attribution_snapshot': 'Attribution snapshot',
  'copilot:session.start': 'Session start',
  'copilot:session.resume': 'Resume',
  'copilot:session.shutdown': 'Shutdown',
  'copilot:session.usage_record': 'Token usage',
  'copilot:session.compaction_start': 'Compaction start',
  'copilot:session.compaction_complete': 'Compaction not applied',
  'copilot:session.binary_asset': 'Attachment data',
  'copilot:assistant.turn_start': 'Turn start',
  'copilot:assistant.turn_end': 'Turn end',
  'copilot:tool.execution_start': 'Tool start',
};

/** The heading of line type t: its title, else (a format's own type) its name, else t. */
export const lineHeading = (t: string) => TITLES[t] ?? (OWN.test(t) ? typeName(t) : t);

/** "Queue operation" for "claude:queue-operation", "Model call success" for "copilot:model.model_call_success": a line type by name. */
function typeName(t: string): string {
  const name = t
    .replace(OWN, '')
    .replace(/^model\.model_/, 'model.')
    .replace(/[-_.]+/g, ' ')
    .trim();
  return name ? name[0].toUpperCase() + name.slice(1) : t;
}

/** The rows of entries: every run of two or more quiet entries (isQuiet) made one row. */
export function messageRows(entries: readonly EntryView[]): MessageRow[] {
  const rows: MessageRow[] = [];
  let run: EntryView[] = [];
  const flush = () => {
    if (run.length === 1) rows.push({ entry: run[0] });
    else if (run.length > 1) rows.push({ quiet: run });
    run = [];
  };
  for (const e of entries) {
    if (isQuiet(e)) {
      run.push(e);
      continue;
    }
    flush();
    rows.push({ entry: e });
  }
  flush();
  return rows;
}

/** "4 lines: queue operation ×2, last prompt, mode": what a quiet run holds, in order of first appearance. */
export function quietSummary(run: readonly EntryView[]): string {
  const counts = new Map<string, number>();
  for (const e of run) {
    const sub = e.subtype && e.subtype !== 'message' ? ` ${e.subtype.replace(/_/g, ' ')}` : '';
    const k = `${lineHeading(lineType(e)).toLowerCase()}${sub}`;
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  const parts = [...counts].map(([k, n]) => (n > 1 ? `${k} ×${n}` : k));
  return `${run.length} lines: ${parts.join(', ')}`;
}

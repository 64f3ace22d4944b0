// The sidebar's order: each session followed by the sub-agents it spawned
// (Claude Code writes one transcript per Task/Agent call, Codex one per
// spawn_agent; a busy session spawns dozens), instead of the sub-agents
// scattered among the sessions by their start.
import type { SessionSummary } from '../types';

/** A row of the sidebar: a session, and 1 for a sub-agent shown under its parent. */
export interface SessionRow {
  session: SessionSummary;
  depth: 0 | 1;
}

/**
 * The rows of sessions (in the order given) with every sub-agent whose
 * parent is listed moved right after it, in the order given; a sub-agent
 * whose parent is not listed (filtered out, another project) stays where it
 * is, as a session of its own.
 */
export function nestSubagents(sessions: readonly SessionSummary[]): SessionRow[] {
  const listed = new Set(sessions.map((s) => s.id));
  const children = new Map<string, SessionSummary[]>();
  for (const s of sessions) {
    if (s.agentId && s.parentSession && s.parentSession !== s.id && listed.has(s.parentSession)) {
      const list = children.get(s.parentSession) ?? [];
      list.push(s);
      children.set(s.parentSession, list);
    }
  }
  const out: SessionRow[] = [];
  const seen = new Set<string>();
  // A sub-agent's own sub-agents follow it, one level in too (the sidebar
  // indents once); seen ends a loop of parents.
  const emit = (s: SessionSummary, depth: 0 | 1) => {
    if (seen.has(s.id)) return;
    seen.add(s.id);
    out.push({ session: s, depth });
    for (const c of children.get(s.id) ?? []) emit(c, 1);
  };
  for (const s of sessions) {
    if (!(s.agentId && s.parentSession && s.parentSession !== s.id && listed.has(s.parentSession))) emit(s, 0);
  }
  // Sub-agents in a loop of parents, none of them a session of its own.
  for (const s of sessions) emit(s, 0);
  return out;
}

// What a session descends from, as the sidebar marks it: a sub-agent
// transcript names the session that spawned it, a fork (or a Claude Code
// resumed copy) the session it was forked from.
import type { SessionSummary } from '../types';

export interface Lineage {
  /** The badge: "sub-agent" or "fork". */
  label: string;
  /** The badge's tooltip: what it descends from, by title when listed. */
  title: string;
}

/**
 * The lineage of s, or null for a session that descends from none. Its
 * parent is named by its title when sessionById holds it (the sidebar holds
 * one project's sessions), else by its id.
 */
export function lineage(s: SessionSummary, sessionById: ReadonlyMap<string, SessionSummary>): Lineage | null {
  if (!s.parentSession) return null;
  const parent = sessionById.get(s.parentSession);
  const name = parent ? `“${parent.title || parent.name || parent.id}”` : s.parentSession;
  if (s.agentId) return { label: 'sub-agent', title: `A sub-agent (${s.agentId}) spawned by ${name}` };
  return { label: 'fork', title: `Forked from ${name}` };
}

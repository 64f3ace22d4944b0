import { describe, expect, it } from 'vitest';
import { lineage } from './lineage';
import type { SessionSummary } from '../types';

const session = (o: Partial<SessionSummary>): SessionSummary => ({ id: 'x', title: '', name: '', ...o }) as SessionSummary;
const byId = (...ss: SessionSummary[]) => new Map(ss.map((s) => [s.id, s]));

describe('lineage', () => {
  const main = session({ id: 'main', title: 'Health check for acme-api' });
  it('marks a sub-agent transcript as one, not as a fork', () => {
    const agent = session({ id: 'agent-a7', parentSession: 'main', agentId: 'a7' });
    expect(lineage(agent, byId(main, agent))).toEqual({ label: 'sub-agent', title: 'A sub-agent (a7) spawned by “Health check for acme-api”' });
  });
  it('names a fork’s parent by its title, by its id when it is not listed', () => {
    const fork = session({ id: 'f', parentSession: 'main' });
    expect(lineage(fork, byId(main, fork))).toEqual({ label: 'fork', title: 'Forked from “Health check for acme-api”' });
    expect(lineage(fork, byId(fork))).toEqual({ label: 'fork', title: 'Forked from main' });
  });
  it('marks nothing on a session of its own', () => {
    expect(lineage(main, byId(main))).toBeNull();
  });
});

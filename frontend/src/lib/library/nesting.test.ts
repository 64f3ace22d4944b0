import { describe, expect, it } from 'vitest';
import { nestSubagents } from './nesting';
import type { SessionSummary } from '../types';

const s = (id: string, o: Partial<SessionSummary> = {}) => ({ id, title: id, ...o }) as SessionSummary;
const order = (rows: ReturnType<typeof nestSubagents>) => rows.map((r) => `${'  '.repeat(r.depth)}${r.session.id}`);

describe('nestSubagents', () => {
  it('puts each sub-agent under the session that spawned it, in the order given', () => {
    // Newest first, as the library lists them: the sub-agents started after their parent.
    const rows = nestSubagents([
      s('agent-b', { agentId: 'b', parentSession: 'main' }),
      s('other'),
      s('agent-a', { agentId: 'a', parentSession: 'main' }),
      s('main'),
      s('old'),
    ]);
    expect(order(rows)).toEqual(['other', 'main', '  agent-b', '  agent-a', 'old']);
  });
  it('leaves a sub-agent whose parent is not listed, and a fork, where they are', () => {
    const rows = nestSubagents([s('agent-x', { agentId: 'x', parentSession: 'elsewhere' }), s('fork', { parentSession: 'main' }), s('main')]);
    expect(order(rows)).toEqual(['agent-x', 'fork', 'main']);
  });
  it('keeps every session exactly once', () => {
    const list = [s('a'), s('agent-1', { agentId: '1', parentSession: 'a' }), s('agent-2', { agentId: '2', parentSession: 'agent-1' })];
    expect(order(nestSubagents(list))).toEqual(['a', '  agent-1', '  agent-2']);
    // Two sub-agents naming each other: both still listed.
    const loop = [s('agent-p', { agentId: 'p', parentSession: 'agent-q' }), s('agent-q', { agentId: 'q', parentSession: 'agent-p' })];
    expect(nestSubagents(loop).map((r) => r.session.id).sort()).toEqual(['agent-p', 'agent-q']);
  });
});

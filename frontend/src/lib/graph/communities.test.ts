import { describe, expect, test } from 'vitest';
import { centroids, findCommunities, labelWidth, placeClusterLabels } from './communities';
import { syntheticGraph } from './synthetic';

describe('communities of a large graph', () => {
  const g = syntheticGraph(3000);
  const cs = findCommunities(g.nodes ?? [], g.edges ?? []);

  test('every node is in one community, the largest first', () => {
    const seen = new Set<string>();
    for (const c of cs) for (const id of c.members) {
      expect(seen.has(id)).toBe(false);
      seen.add(id);
    }
    expect(seen.size).toBe(g.nodes?.length);
    for (let i = 1; i < cs.length; i++) expect(cs[i].members.length).toBeLessThanOrEqual(cs[i - 1].members.length);
  });

  test("an overview: far fewer communities than sessions, each of one project", () => {
    const sessions = new Set((g.nodes ?? []).map((n) => n.sessionId)).size;
    expect(cs.length).toBeLessThan(sessions / 2);
    const byId = new Map((g.nodes ?? []).map((n) => [n.id, n]));
    for (const c of cs.slice(0, 10)) {
      const counts = new Map<string, number>();
      for (const id of c.members) counts.set(byId.get(id)!.project, (counts.get(byId.get(id)!.project) ?? 0) + 1);
      expect(counts.size).toBe(1);
      expect(c.title).toMatch(/project-\d+/);
    }
  });

  test('the same graph gives the same communities', () => {
    const again = findCommunities(g.nodes ?? [], g.edges ?? []);
    expect(again.map((c) => c.members.length)).toEqual(cs.map((c) => c.members.length));
  });

  test('labels never overlap and stay in the view', () => {
    const pos = new Map((g.nodes ?? []).map((n, i) => [n.id, { x: (i * 37) % 1000, y: (i * 91) % 700 }]));
    const labels = placeClusterLabels(cs, centroids(cs, (id) => pos.get(id) ?? null), (p) => p, 1000, 700);
    expect(labels.length).toBeGreaterThan(0);
    for (const [i, a] of labels.entries()) {
      expect(a.x >= 0 && a.x <= 1000 && a.y >= 0 && a.y <= 700).toBe(true);
      for (const b of labels.slice(i + 1)) {
        const w = (l: typeof a) => labelWidth({ title: l.title, lead: l.lead, members: Array(l.count) });
        const apart = Math.abs(a.x - b.x) * 2 >= w(a) + w(b) + 8 || Math.abs(a.y - b.y) * 2 >= 36 + 36 + 8;
        expect(apart).toBe(true);
      }
    }
  });

  // The label's second line, the lead, can be its wider one: a short title
  // over "Synthetic segment 29 of session 20" took 176 px by the title
  // alone, and two such labels overlapped in the window.
  test('a label is as wide as its wider line, within its max-width', () => {
    const short = { title: 'project-8 · 2025-01-01', lead: 'Synthetic segment 29 of session 20', members: Array(69) };
    expect(labelWidth(short)).toBeGreaterThanOrEqual(Math.min(220, 34 * 6.5) + 17);
    expect(labelWidth({ ...short, lead: 'x'.repeat(400) })).toBe(220 + 17);
  });
});

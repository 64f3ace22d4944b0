// Knowledge nodes in the graph (issue 9 §2 §4): the three real samples
// imported, their knowledge items (found offline at import) are drawn as
// squares beside the segments they came from, listed by kind in the legend
// with counts; hiding them all (or one kind) takes them out of the drawing
// and the counts; clicking one opens its panel, and from there the
// Knowledge view.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, shot, startServe, waitNodeCount, analysed } from './harness.mjs';

let serve, browser, page, problems, data;
before(async () => {
  serve = await startServe();
  await serve.call('Import', 'ImportSamples');
  await analysed(serve);
  data = await serve.call('Graph', 'Graph', {});
  ({ browser, page, problems } = await openPage(serve.url, { width: 1280, height: 800 }));
});
after(async () => {
  await browser?.close();
  await serve?.stop();
});

const nodeCount = async () => Number((await page.textContent('[data-testid=node-count]')).trim());

test('knowledge nodes are drawn beside their segments, listed by kind, and can be hidden', async () => {
  const knowledge = data.nodes.filter((n) => n.knowledge);
  const segments = data.nodes.filter((n) => !n.knowledge);
  const items = await serve.call('Knowledge', 'List', { limit: 1000 });
  assert.ok(items.length >= 50, `the samples hold ${items.length} items found offline`);
  assert.equal(knowledge.length, items.length, 'every item of the library is a node of the graph');
  const byKind = {};
  for (const n of knowledge) byKind[n.type] = (byKind[n.type] ?? 0) + 1;

  await waitNodeCount(page, data.nodes.length);
  const legend = page.locator('[data-testid=legend]');
  const toggle = legend.locator('button[aria-expanded]').first();
  if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
  await page.waitForSelector('[data-testid=legend-knowledge-kind]');
  const rows = await page.$$eval('[data-testid=legend-knowledge-kind]', (els) =>
    Object.fromEntries(els.map((e) => [e.getAttribute('data-type'), Number(e.querySelector('.n').textContent)])));
  assert.deepEqual(rows, byKind);
  // Knowledge kinds are not listed among the segment types.
  const segTypes = await page.$$eval('[data-testid=legend-node-type]', (els) => els.map((e) => e.getAttribute('data-type')));
  for (const k of Object.keys(byKind)) assert.ok(!segTypes.includes(k), `${k} listed as a segment type`);
  await page.waitForTimeout(400);
  await shot(page, 'e2e-kgraph-1-graph');

  // Each item sits under the segment it came from (lanes: just below, within half a lane).
  for (const n of knowledge) {
    const [p, s] = await page.evaluate(([a, b]) => [window.__rhizome.nodePosition(a), window.__rhizome.nodePosition(b)], [n.id, n.knowledge.segmentNodeId]);
    assert.ok(p && s, `${n.id} or its segment is not drawn`);
    assert.ok(p.y > s.y && p.y - s.y < 80, `${n.id} at ${JSON.stringify(p)}, its segment at ${JSON.stringify(s)}`);
  }

  // Hide every kind: the counts are the segments' again; show questions back.
  await page.click('[data-testid=legend-knowledge]');
  await waitNodeCount(page, segments.length);
  assert.equal(await page.locator('[data-testid=legend-knowledge-kind].off').count(), Object.keys(byKind).length);
  await shot(page, 'e2e-kgraph-2-hidden');
  await page.click('[data-testid=legend-knowledge-kind][data-type=question]');
  await waitNodeCount(page, segments.length + byKind.question);
  // Some shown: the head hides them all; again, shows them all.
  await page.click('[data-testid=legend-knowledge]');
  await waitNodeCount(page, segments.length);
  await page.click('[data-testid=legend-knowledge]');
  await waitNodeCount(page, data.nodes.length);
  assert.equal(await nodeCount(), data.nodes.length);
  assert.deepEqual(problems, []);
});

test('clicking a knowledge node opens its panel, then the Knowledge view', async () => {
  const decision = data.nodes.find((n) => n.knowledge?.kind === 'decision');
  assert.ok(decision);
  await page.evaluate((id) => window.__rhizome.selectNode(id), decision.id);
  await page.waitForTimeout(500);
  const p = await page.evaluate((id) => window.__rhizome.nodePosition(id), decision.id);
  // The real click, on the square itself.
  const hit = await page.evaluate(({ x, y }) => document.elementFromPoint(x, y)?.tagName, p);
  assert.equal(hit, 'CANVAS');
  await page.mouse.click(p.x, p.y);
  const panel = page.locator(`[data-testid=knowledge-node-panel][data-id="${decision.id}"]`);
  await panel.waitFor();
  await page.waitForSelector('[data-testid=knowledge-node-title]');
  assert.equal((await page.textContent('[data-testid=knowledge-node-title]')).trim(), decision.knowledge.title);
  await shot(page, 'e2e-kgraph-3-panel');
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.setViewportSize({ width: 1024, height: 700 });
  await page.waitForTimeout(400);
  await shot(page, 'e2e-kgraph-4-panel-dark-1024');
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 800 });

  await page.click('[data-testid=knowledge-node-open]');
  await page.waitForSelector('[data-testid=knowledge-view]');
  await page.locator('[data-testid=decision-title]', { hasText: decision.knowledge.title }).first().waitFor();
  assert.deepEqual(problems, []);
});

test('a link to a knowledge item opens it in the graph, beside its segment', async () => {
  const fact = data.nodes.find((n) => n.knowledge?.kind === 'projectFact');
  const seg = data.nodes.find((n) => !n.knowledge && n.id !== fact.knowledge.segmentNodeId);
  await serve.call('Links', 'Create', { source: `rhizome:node/${seg.id}`, target: `rhizome:knowledge/${fact.id}`, type: 'REFERENCES' });
  await page.keyboard.press('g');
  await page.evaluate((id) => window.__rhizome.selectNode(id), seg.id);
  const chip = page.locator(`[data-testid=link-row][data-other="rhizome:knowledge/${fact.id}"] [data-testid=item-chip]`);
  await chip.waitFor();
  assert.match(await chip.textContent(), new RegExp(fact.knowledge.title.slice(0, 20).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  await chip.click();
  await page.locator(`[data-testid=knowledge-node-panel][data-id="${fact.id}"]`).waitFor();
  assert.equal((await page.evaluate(() => window.__rhizome.state())).selected, fact.id);
  await shot(page, 'e2e-kgraph-5-link-opened');
  assert.deepEqual(problems, []);
});

// Relations across sessions in the graph view (issue 9, sections 3 and 4):
// 33 real sessions imported, the offline relations join them (the Force
// layout is no longer 33 disconnected strings), edges are drawn by relation
// type with confidence as opacity, the legend filters them, and focus mode
// (F, depth 1 to 3) draws a node and its neighbourhood only.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { importFiles, openPage, sessionFiles, shot, startServe, waitNodeCount } from './harness.mjs';

let serve, graph;
before(async () => {
  serve = await startServe();
  const report = await importFiles(serve, sessionFiles(33));
  assert.equal(report.totals.imported, 33, JSON.stringify(report.totals));
  // The relations queue derives them after the import (issue 25).
  const end = Date.now() + 120_000;
  for (;;) {
    graph = await serve.call('Graph', 'Graph', {});
    if (graph.edges.some((e) => e.createdBy === 'offline')) break;
    assert.ok(Date.now() < end, `no relations derived: ${graph.edges.length} edges`);
    await new Promise((r) => setTimeout(r, 200));
  }
});
after(async () => {
  await serve?.stop();
});

/** The sessions' connected components over every edge of the graph. */
function sessionComponents(g) {
  const session = new Map(g.nodes.map((n) => [n.id, n.sessionId]));
  const parent = new Map();
  const find = (x) => {
    while (parent.has(x) && parent.get(x) !== x) x = parent.get(x);
    return x;
  };
  for (const e of g.edges) parent.set(find(session.get(e.source)), find(session.get(e.target)));
  return new Set([...new Set(session.values())].map(find)).size;
}

test('the offline relations join the 33 sessions', () => {
  const cross = graph.edges.filter((e) => e.createdBy === 'offline');
  assert.ok(cross.length > 33, `${cross.length} offline relations`);
  for (const e of cross) {
    assert.ok(e.confidence > 0 && e.confidence <= 1, `confidence ${e.confidence}`);
    assert.ok(e.rationale, 'a relation without rationale');
  }
  const without = sessionComponents({ nodes: graph.nodes, edges: graph.edges.filter((e) => e.createdBy === 'boundary') });
  const withRel = sessionComponents(graph);
  assert.equal(without, 33, 'without relations every session is its own string');
  assert.ok(withRel <= 3, `${withRel} components with relations`);
});

test('Force layout with relations, legend filter and focus mode', async () => {
  const { browser, page, problems } = await openPage(serve.url, { width: 1280, height: 900 });
  try {
    await waitNodeCount(page, graph.nodes.length);
    const edgeCount = async () => Number(await page.locator('[data-testid=edge-count]').textContent());
    const all = await edgeCount();
    assert.equal(all, graph.edges.length);
    await page.click('[data-testid=layout-force]');
    await page.waitForTimeout(500);
    await page.waitForFunction(() => !document.body.textContent.includes('ForceAtlas2 running'), null, { timeout: 30_000 });
    await page.click('[data-testid=zoom-fit]');
    await page.waitForTimeout(800);
    await shot(page, 'relations-force-33');

    // The legend lists the relations; hiding RELATES_TO hides its edges from the count.
    const rel = page.locator('[data-testid=legend-edge-type][data-type=RELATES_TO]');
    if (!(await rel.count())) await page.click('[data-testid=legend-toggle]');
    await rel.click();
    const relatesTo = graph.edges.filter((e) => e.type === 'RELATES_TO').length;
    assert.ok(relatesTo > 0);
    assert.equal(await edgeCount(), all - relatesTo);
    await rel.click();
    assert.equal(await edgeCount(), all);

    // Focus mode: F on the selected node draws its neighbourhood only; 2 widens it; F again: all.
    const hub = mostConnected(graph);
    await page.evaluate((id) => window.__rhizome.selectNode(id), hub);
    await page.waitForTimeout(300);
    await page.locator('[data-testid=graph-canvas]').focus();
    await page.keyboard.press('Escape'); // close the node panel, keep the selection out of the way of keys
    await page.evaluate((id) => window.__rhizome.selectNode(id), hub);
    await page.waitForTimeout(300);
    await page.locator('body').press('f');
    await page.waitForSelector('[data-testid=focus-bar]');
    const nodeCount = async () => Number(await page.locator('[data-testid=node-count]').textContent());
    const d1 = await nodeCount();
    assert.ok(d1 > 1 && d1 < graph.nodes.length, `depth 1 shows ${d1} of ${graph.nodes.length}`);
    await page.locator('body').press('2');
    await page.waitForTimeout(200);
    const d2 = await nodeCount();
    assert.ok(d2 >= d1, `depth 2 shows ${d2}, depth 1 ${d1}`);
    await page.waitForTimeout(800);
    // The camera frames the neighbourhood: every focused node is drawn inside the canvas.
    const canvas = await page.locator('[data-testid=graph-canvas]').boundingBox();
    const ids = neighbours(graph, hub, 2);
    assert.equal(ids.size, d2);
    const pos = await page.evaluate((list) => list.map((id) => window.__rhizome.nodePosition(id)), [...ids]);
    for (const p of pos) {
      assert.ok(p && p.x >= canvas.x && p.x <= canvas.x + canvas.width && p.y >= canvas.y && p.y <= canvas.y + canvas.height,
        `a focused node at ${JSON.stringify(p)} is outside the canvas ${JSON.stringify(canvas)}`);
    }
    await shot(page, 'relations-focus-depth2');
    await page.locator('body').press('f');
    await page.waitForFunction((n) => document.querySelector('[data-testid=node-count]')?.textContent?.trim() === String(n), graph.nodes.length);

    // The help overlay lists the focus keys.
    await page.locator('body').press('?');
    const help = await page.locator('body').textContent();
    assert.ok(help.includes('Focus mode'), 'help lists focus mode');
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
  }
});

test('dark theme: relations, the legend and the analyzer panel without a model', async () => {
  const { browser, page, problems } = await openPage(serve.url, { width: 1024, height: 700, colorScheme: 'dark' });
  try {
    await waitNodeCount(page, graph.nodes.length);
    await page.click('[data-testid=analysis-button]');
    await page.waitForSelector('[data-testid=analysis-panel]');
    const text = await page.locator('[data-testid=analysis-panel]').textContent();
    assert.match(text, /none — open Settings/);
    assert.ok(await page.locator('[data-testid=analysis-estimate]').isDisabled(), 'estimate offered without a model');
    await shot(page, 'relations-dark-analyzer-1024');
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
  }
});

/** The ids within depth edges of id, both directions (as focus mode walks). */
function neighbours(g, id, depth) {
  const seen = new Set([id]);
  let frontier = [id];
  for (let d = 0; d < depth; d++) {
    const next = [];
    for (const e of g.edges) {
      for (const [a, b] of [[e.source, e.target], [e.target, e.source]]) {
        if (frontier.includes(a) && !seen.has(b)) {
          seen.add(b);
          next.push(b);
        }
      }
    }
    frontier = next;
  }
  return seen;
}

/** The node with the most edges. */
function mostConnected(g) {
  const deg = new Map();
  for (const e of g.edges) for (const id of [e.source, e.target]) deg.set(id, (deg.get(id) ?? 0) + 1);
  return [...deg.entries()].sort((a, b) => b[1] - a[1])[0][0];
}

// Search finds text in the library and jumps to its node.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, shot, startServe, waitNodeCount, analysed } from './harness.mjs';

let serve, browser, page, problems;
before(async () => {
  serve = await startServe();
  await serve.call('Import', 'ImportSamples');
  await analysed(serve);
  ({ browser, page, problems } = await openPage(serve.url, { colorScheme: 'dark' }));
});
after(async () => {
  await browser?.close();
  await serve?.stop();
});

test('search, then Enter jumps to the node and shows it', async () => {
  const graph = await serve.call('Graph', 'Graph', {});
  await waitNodeCount(page, graph.nodes.length);

  const query = 'compaction';
  const hits = await serve.call('Search', 'Query', query, 30);
  assert.ok(hits.length > 0, `Search.Query(${query}) found nothing`);

  await page.keyboard.press('Control+k');
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'search-input');
  await page.keyboard.type(query);
  await page.waitForSelector('[data-testid=search-result]');
  const first = page.locator('[data-testid=search-result]').first();
  assert.equal(await first.getAttribute('data-node'), hits[0].nodeId);
  assert.ok((await first.locator('mark').count()) > 0, 'the snippet marks no match');
  await shot(page, 'e2e-search-1-results-dark');

  await page.keyboard.press('Enter');
  const id = hits[0].nodeId;
  await page.waitForSelector(`[data-testid=node-panel][data-node="${id}"]`);
  const detail = await serve.call('Graph', 'Node', id);
  await page.waitForFunction(
    (summary) => document.querySelector('[data-testid=node-summary]')?.textContent?.trim() === summary,
    detail.node.content.summary.trim(),
  );

  // The camera shows the node (zoomed in on a large graph): well inside the
  // canvas. It moves no more than that, so lane labels stay whole (issue 6,
  // section 4.3): a node already in view is not re-centred.
  await page.waitForTimeout(900);
  const at = await page.evaluate((nodeId) => {
    const p = window.__rhizome.nodePosition(nodeId);
    const r = document.querySelector('[data-testid=graph-canvas]').getBoundingClientRect();
    return p && { x: p.x - r.left, y: p.y - r.top, width: r.width, height: r.height };
  }, id);
  assert.ok(at && at.x > 40 && at.x < at.width - 40 && at.y > 40 && at.y < at.height - 40, `the node is not in view: ${JSON.stringify(at)}`);
  await shot(page, 'e2e-search-2-jumped-dark');

  // "/" focuses the search too.
  await page.click('[data-testid=graph-canvas]', { position: { x: 5, y: 5 } });
  await page.keyboard.press('/');
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'search-input');

  // With the node panel open the box is narrow; the results keep room for their titles, inside the window.
  await page.keyboard.type(query);
  await page.waitForSelector('[data-testid=search-result]');
  const box = await page.locator('[data-testid=search-results]').boundingBox();
  const viewport = page.viewportSize();
  assert.ok(box.width >= 480 && box.x >= 0 && box.x + box.width <= viewport.width, `results at ${JSON.stringify(box)} in ${viewport.width} px`);
  await shot(page, 'e2e-search-3-results-beside-the-panel');
  assert.deepEqual(problems, []);
});

// The model analyzer in the window (issue 9, sections 1 and 4): the
// estimate before a batch, the budget, progress with pause and resume, and
// the node panel's analyses with the version diff showing what the model
// changed. The model is build/fakemodel (llmtest's OpenAI server on
// loopback), which answers the analyzer's JSON schema with a valid made-up
// analysis.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { importFiles, openPage, sessionFiles, shot, startServe, waitNodeCount } from './harness.mjs';

let serve, graph;
before(async () => {
  // 3 ms a streamed chunk: slow enough that Pause, clicked at once, finds
  // the batch running; at 15 ms the batch took a minute of waiting.
  serve = await startServe({ model: { delay: '3ms' } });
  const report = await importFiles(serve, sessionFiles(3));
  assert.equal(report.totals.imported, 3, JSON.stringify(report.totals));
  graph = await serve.call('Graph', 'Graph', {});
});
after(async () => {
  await serve?.stop();
});

test('estimate, budget, start, pause, resume, and what the model changed', async () => {
  const { browser, page, problems } = await openPage(serve.url, { width: 1280, height: 900 });
  try {
    await waitNodeCount(page, graph.nodes.length);
    await page.click('[data-testid=analysis-button]');
    await page.waitForSelector('[data-testid=analysis-panel]');
    await page.fill('[data-testid=analysis-budget]', '5');
    await page.click('[data-testid=analysis-panel] >> text=Set');
    await page.waitForFunction(() => document.querySelector('[data-testid=analysis-spent]')?.textContent?.includes('$5.00 budget'));
    await page.click('[data-testid=analysis-estimate]');
    const est = await page.locator('[data-testid=analysis-estimate-result]').textContent();
    assert.match(est, /input and/);
    await shot(page, 'analyzer-estimate');

    await page.click('[data-testid=analysis-start]');
    await page.waitForSelector('[data-testid=analysis-button][data-state=running]');
    await page.click('[data-testid=analysis-pause]');
    // Pausing waits for the node being analysed (its chunks, each a model call)
    // to finish: 180 s bounds a hang; a loaded machine missed 60 s.
    await page.waitForSelector('[data-testid=analysis-button][data-state=paused]', { timeout: 180_000 });
    const paused = await serve.call('Analysis', 'Status');
    assert.equal(paused.state, 'paused');
    assert.ok(paused.queued > 0 && paused.queued < graph.nodes.length, JSON.stringify(paused));
    await shot(page, 'analyzer-paused');

    await page.click('[data-testid=analysis-resume]');
    await page.waitForSelector('[data-testid=analysis-button][data-state=idle]', { timeout: 120_000 });
    const done = await serve.call('Analysis', 'Status');
    assert.equal(done.queued, 0);

    // A node analysed by the model: its analyses and a version diff.
    const id = graph.nodes[0].id;
    const detail = await serve.call('Graph', 'Node', id);
    assert.ok(detail.versions.length >= 2, JSON.stringify(detail.versions));
    assert.ok(detail.analyses.length >= 1 && detail.analyses[0].source === 'model:openai/rhizome-test', JSON.stringify(detail.analyses));
    await page.click('[data-testid=analysis-panel] >> [aria-label=Close]');
    await page.evaluate((n) => window.__rhizome.selectNode(n), id);
    await page.waitForSelector('[data-testid=node-analysis]');
    const text = await page.locator('[data-testid=node-analyses]').textContent();
    assert.match(text, /rhizome-test/);
    assert.match(text, /version 2/);
    await page.locator('[data-testid=node-analyses-section]').scrollIntoViewIfNeeded();
    await shot(page, 'analyzer-node-analyses');
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
  }
});

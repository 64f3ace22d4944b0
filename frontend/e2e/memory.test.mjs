// The Memory view (M): a hybrid search whose results explain their score
// ("why this result") and show the bridges between them, and consolidation
// run from the window, logged and undone.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { importFiles, openPage, SAMPLES, shot, startServe } from './harness.mjs';

let serve, browser, page, problems;
before(async () => {
  serve = await startServe();
  await importFiles(serve, SAMPLES.map((f) => ({ name: basename(f), bytes: readFileSync(f) })));
  ({ browser, page, problems } = await openPage(serve.url));
});
after(async () => {
  await browser?.close();
  await serve?.stop();
});

test('hybrid search explains each result and draws the bridges', async () => {
  await page.keyboard.press('m');
  await page.waitForSelector('[data-testid=memory-view]');
  await page.fill('[data-testid=hybrid-input]', 'theme colors');
  await page.keyboard.press('Enter');
  await page.waitForSelector('[data-testid=hybrid-hits] li');
  const why = page.locator('[data-testid=why] tr');
  assert.equal(await why.count(), 8, 'eight components in the breakdown of the first hit');
  const first = await page.locator('[data-testid=why] th').first().textContent();
  assert.ok(['content', 'keyword', 'vector', 'relation'].includes(first.trim()), `largest share first: ${first}`);
  await page.waitForSelector('[data-testid=bridges] li');
  await shot(page, 'memory-search-explain');
  assert.deepEqual(problems, []);
});

test('a bridge is drawn in the graph, the rest dimmed, until Esc', async () => {
  const ids = await page.evaluate(() => [...document.querySelectorAll('[data-testid=bridges] li')].length);
  assert.ok(ids > 0);
  await page.locator('[data-testid=show-path]').nth(2).click();
  await page.waitForFunction(() => window.__rhizome.state().path?.length > 1 && window.__rhizome.state().selected);
  const { path, selected } = await page.evaluate(() => window.__rhizome.state());
  assert.equal(selected, path[0], 'the source is opened');
  await page.waitForTimeout(800);
  await shot(page, 'memory-bridge-in-graph');
  await page.keyboard.press('Escape');
  assert.equal(await page.evaluate(() => window.__rhizome.state().path), null);
  await page.keyboard.press('m');
  await page.waitForSelector('[data-testid=memory-view]');
  assert.deepEqual(problems, []);
});

test('a consolidation run is logged in the window and can be undone', async () => {
  await page.getByRole('button', { name: 'decay', exact: true }).click();
  await page.waitForSelector('[data-testid=run-log] ol > li .undo');
  assert.match(await page.locator('[data-testid=run-log] ol > li').first().textContent(), /decay: \d+ rescored/);
  await shot(page, 'memory-run-log');
  await page.locator('[data-testid=run-log] .undo').first().click();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=run-log] ol > li').length === 2);
  assert.match(await page.locator('[data-testid=run-log] ol > li').nth(1).textContent(), /undone/);
  const runs = await serve.call('Memory', 'Runs', 0);
  assert.equal(runs.length, 2);
  assert.equal(runs[0].undoOf, runs[1].id);
  assert.deepEqual(problems, []);
});

test('the weights are settings: a weight set to 0 shows in the breakdown', async () => {
  await page.locator('[data-testid=search-settings] summary').click();
  await page.waitForSelector('[data-testid=weight-recency]');
  await page.fill('[data-testid=weight-recency]', '0');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.waitForFunction(() => document.querySelector('[data-testid=search-settings] .note')?.textContent?.startsWith('Saved'));
  const saved = await serve.call('Search', 'SearchSettings');
  assert.equal(saved.weights.recency, 0);
  assert.equal(saved.weights.vector, 0.25);
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=why] tr')].some((r) => r.textContent.includes('recency') && r.textContent.includes('× 0.00')));
  await shot(page, 'memory-search-settings');
  assert.deepEqual(problems, []);
});

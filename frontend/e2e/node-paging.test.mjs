// A long segment in the node panel: its messages come a page at a time
// (Library.SegmentEntries with an offset) as the list scrolls, with a
// loading line while a page is on its way, until every entry is shown once,
// in file order. The session is a real one (large-session.jsonl, whose
// first segment holds 691 entries), dropped on the page, so it also goes
// through the streamed upload (POST /api/upload).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO, dropFiles, openPage, shot, startServe, waitImportDone } from './harness.mjs';

const LARGE = [join(REPO, 'app/samples/large-session.jsonl'), join(REPO, '../shared/sessions/large-session.jsonl')].find((p) =>
  existsSync(p),
);
const PAGE = 100; // app.DefaultEntryPage

let serve, browser, page, problems;
before(async () => {
  serve = await startServe();
  ({ browser, page, problems } = await openPage(serve.url, { width: 1280, height: 800 }));
});
after(async () => {
  await browser?.close();
  await serve?.stop();
});

test('a segment longer than a page loads as its messages scroll', async () => {
  await page.waitForSelector('[data-testid=empty-state]');
  const uploads = [];
  page.on('request', (r) => {
    if (r.url().includes('/api/upload')) uploads.push(r.method());
  });
  await dropFiles(page, [{ name: 'large-session.jsonl', bytes: readFileSync(LARGE) }]);
  assert.deepEqual(await waitImportDone(page), ['imported']);
  assert.deepEqual(uploads, ['POST'], 'the drop was not streamed to /api/upload');
  await page.keyboard.press('Escape');

  const [session] = await serve.call('Library', 'Sessions', '');
  const timeline = await serve.call('Library', 'Timeline', session.id);
  const big = timeline.reduce((a, b) => (b.entries > a.entries ? b : a));
  assert.ok(big.entries > 3 * PAGE, `the largest segment holds ${big.entries} entries`);
  const want = (await serve.entries(big.nodeId)).map((e) => e.id);
  assert.equal(want.length, big.entries);

  // Every page asked for, and a pause before each page after the first so
  // that the loading line can be seen.
  const asked = [];
  await page.route('**/api/Library/SegmentEntries*', async (route) => {
    const [nodeId, offset, limit] = JSON.parse(route.request().postData());
    if (nodeId === big.nodeId) asked.push([offset, limit]);
    if (offset > 0) await new Promise((r) => setTimeout(r, 400));
    await route.continue();
  });

  await page.evaluate((id) => window.__rhizome.selectNode(id), big.nodeId);
  const panel = page.locator(`[data-testid=node-panel][data-node="${big.nodeId}"]`);
  const list = panel.locator('[data-testid=messages]');
  await panel.locator('[data-testid=message]').first().waitFor();
  const loaded = async () => Number(await list.getAttribute('data-loaded'));
  assert.equal(await list.getAttribute('data-total'), String(big.entries));
  assert.equal((await panel.locator('[data-testid=message-count]').textContent()).trim(), String(big.entries));
  assert.equal(await loaded(), PAGE, 'more than the first page was loaded before any scrolling');
  assert.equal(await panel.locator('[data-testid=message]').count(), PAGE);
  assert.deepEqual(asked, [[0, 0]]);

  const scroller = panel.locator('.scroll');
  const toEnd = () => scroller.evaluate((el) => el.scrollTo({ top: el.scrollHeight }));
  await toEnd();
  await panel.locator('[data-testid=messages-loading]').waitFor();
  assert.match(await panel.locator('[data-testid=messages-loading]').textContent(), new RegExp(`Loading messages… ${PAGE} of ${big.entries}`));
  await shot(page, 'e2e-paging-1-loading');
  await page.waitForFunction((n) => Number(document.querySelector('[data-testid=messages]')?.dataset.loaded) >= n, 2 * PAGE);

  for (let i = 0; i < 20 && (await loaded()) < big.entries; i++) {
    const before = await loaded();
    await toEnd();
    await page.waitForFunction((n) => Number(document.querySelector('[data-testid=messages]')?.dataset.loaded) > n, before);
  }
  assert.equal(await loaded(), big.entries);
  const shown = await panel.locator('[data-testid=message]').evaluateAll((els) => els.map((e) => e.getAttribute('data-entry')));
  assert.deepEqual(shown, want, 'the messages shown are not the segment’s entries in file order, each once');
  const offsets = [];
  for (let o = 0; o < big.entries; o += PAGE) offsets.push([o, 0]);
  assert.deepEqual(asked, offsets);
  assert.equal(await panel.locator('[data-testid=messages-more]').count(), 0);
  await shot(page, 'e2e-paging-2-all');
  assert.deepEqual(problems, []);
});

// The serve token: the URL `rhizome serve` prints carries it, the page moves
// it to the tab's session storage and out of the address bar (so it does not
// sit in the browser's history), and a reload still works from there.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, shot, startServe, waitImportDone } from './harness.mjs';

let serve, browser, page, problems;
before(async () => {
  serve = await startServe();
  ({ browser, page, problems } = await openPage(serve.url));
});
after(async () => {
  await browser?.close();
  await serve?.stop();
});

test('the token leaves the address bar and a reload still works', async () => {
  await page.waitForSelector('[data-testid=empty-state]');
  assert.ok(serve.url.includes(`?token=${serve.token}`));
  assert.equal(page.url(), `${serve.origin}/`);
  assert.equal(await page.evaluate(() => location.href), `${serve.origin}/`);
  assert.equal(await page.evaluate(() => sessionStorage.getItem('rhizome.token')), serve.token);
  // Replaced, not pushed: no entry of the tab's history holds the token
  // (the tab opened on about:blank, then the page).
  assert.equal(await page.evaluate(() => history.length), 2);
  await page.goBack();
  assert.equal(page.url(), 'about:blank');
  await page.goForward();
  assert.equal(page.url(), `${serve.origin}/`);
  await page.waitForSelector('[data-testid=empty-state]');

  await page.reload();
  await page.waitForFunction(() => window.__rhizome !== undefined);
  await page.waitForSelector('[data-testid=empty-state]');
  assert.equal(page.url(), `${serve.origin}/`);
  // Calls and the event stream still carry the token: the samples import.
  await page.click('[data-testid=import-samples]');
  const statuses = await waitImportDone(page);
  assert.deepEqual(statuses, ['imported', 'imported', 'imported']);
  await shot(page, 'e2e-token-reloaded');

  // Another tab has its own session storage: the address alone gets nothing.
  const other = await browser.newPage();
  const call = await other.request.post(`${serve.origin}/api/Library/Stats`, { data: [] });
  assert.equal(call.status(), 401);
  await other.close();
  assert.deepEqual(problems, []);
});

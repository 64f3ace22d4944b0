// Session text is untrusted: script in it must show as text and never run
// (in the window it could call the Go bindings).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { dropFiles, openPage, shot, startServe, waitImportDone, analysed } from './harness.mjs';

const SCRIPT = '<script>window.__pwned=1</script>';
const IMG = '<img src=x onerror="window.__pwned=2">';
const LINK = '[x](javascript:window.__pwned=3)';

/** A tiny version 3 session whose user and assistant text carry the payloads. */
function xssSession() {
  const t = (s) => new Date(Date.UTC(2025, 5, 1, 10, 0, s)).toISOString();
  const lines = [
    { type: 'session', version: 3, id: 'e2e-xss-0000-4000-8000-000000000001', timestamp: t(0), cwd: '/tmp/e2e-xss' },
    {
      type: 'message', id: 'a0000001', parentId: null, timestamp: t(1),
      message: { role: 'user', content: `Please explain ${SCRIPT} and ${IMG} and ${LINK}`, timestamp: Date.parse(t(1)) },
    },
    {
      type: 'message', id: 'a0000002', parentId: 'a0000001', timestamp: t(2),
      message: {
        role: 'assistant',
        content: [{ type: 'text', text: `You wrote ${SCRIPT}\n\n${IMG}\n\nand ${LINK}` }],
        api: 'anthropic-messages', provider: 'anthropic', model: 'claude-test', stopReason: 'stop',
        usage: { input: 10, output: 20, cacheRead: 0, cacheWrite: 0, totalTokens: 30, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
        timestamp: Date.parse(t(2)),
      },
    },
  ];
  return Buffer.from(lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
}

let serve, browser, page, problems;
before(async () => {
  serve = await startServe();
  ({ browser, page, problems } = await openPage(serve.url));
});
after(async () => {
  await browser?.close();
  await serve?.stop();
});

test('script in session text is shown as text and never runs', async () => {
  await page.waitForSelector('[data-testid=empty-state]');
  await dropFiles(page, [{ name: 'xss<img src=x onerror="window.__pwned=4">.jsonl', bytes: xssSession() }]);
  const statuses = await waitImportDone(page);
  assert.deepEqual(statuses, ['imported']);
  await analysed(serve);

  const graph = await serve.call('Graph', 'Graph', {});
  assert.ok(graph.nodes.length >= 1);
  await page.keyboard.press('Escape');
  await page.evaluate((id) => window.__rhizome.selectNode(id), graph.nodes[0].id);
  await page.waitForSelector('[data-testid=node-panel] [data-testid=message]');
  await page.waitForTimeout(300);

  const panel = page.locator('[data-testid=node-panel]');
  const messages = await page.locator('[data-testid=message]').allTextContents();
  const all = messages.join('\n');
  assert.ok(all.includes(SCRIPT), `messages do not show ${SCRIPT} as text:\n${all}`);
  assert.ok(all.includes('onerror="window.__pwned=2"'), 'the <img onerror> is not shown as text');
  assert.equal(await panel.locator('script').count(), 0);
  assert.equal(await panel.locator('[onerror]').count(), 0);
  assert.equal(await panel.locator('img').count(), 0);
  assert.equal(await panel.locator('a[href^="javascript:" i]').count(), 0);

  // Clicking the neutralised link does nothing either.
  const link = panel.locator('[data-testid=message] a', { hasText: 'x' }).first();
  if (await link.count()) await link.click();
  await page.waitForTimeout(300);
  await shot(page, 'e2e-xss-panel');

  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  assert.equal(await page.locator('script:not([type=module]):not([src])').count(), 0);
  assert.equal(await page.locator('body [onerror]').count(), 0);
  assert.deepEqual(problems, []);
});

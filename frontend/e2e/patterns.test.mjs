// The patterns dashboard (U): usage over time drawn as a chart (tokens or
// cost, by model or project), the seven patterns listed, in light and dark.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { importFiles, openPage, piSession, SAMPLES, shot, startServe } from './harness.mjs';

let serve;
const open = [];
before(async () => {
  serve = await startServe();
  await importFiles(serve, SAMPLES.map((f) => ({ name: basename(f), bytes: readFileSync(f) })));
  // One model from three providers.
  await importFiles(serve, ['openai', 'azure', 'openrouter'].map((provider, i) =>
    piSession({ n: 20 + i, cwd: '/home/kim/review', prompt: `Review on ${provider}`, provider, model: 'gpt-5.5', tokens: 30000 - i * 5000, cost: 3 - i })));
});
after(async () => {
  for (const b of open) await b.close();
  await serve?.stop();
});

for (const scheme of ['light', 'dark']) {
  test(`the dashboard charts usage and lists the seven patterns (${scheme})`, async () => {
    const { browser, page, problems } = await openPage(serve.url, { colorScheme: scheme, width: 1280, height: 800 });
    open.push(browser);
    await page.keyboard.press('u');
    await page.waitForSelector('[data-testid=usage-chart] rect');
    assert.equal(await page.locator('[data-testid^=pattern-]').count(), 7);
    const bars = await page.locator('[data-testid=usage-chart] rect').count();
    const dash = await serve.call('Patterns', 'Dashboard');
    const days = dash.usage.tokens.filter((t) => t > 0).length;
    assert.ok(bars >= days, `${bars} bars for ${days} days with tokens`);
    await shot(page, `patterns-dashboard-${scheme}`);
    await page.getByRole('button', { name: 'Cost' }).click();
    await page.getByRole('button', { name: 'By project' }).click();
    assert.match(await page.locator('[data-testid=usage-chart] figcaption').textContent(), /\$/);
    if (scheme === 'light') await shot(page, 'patterns-dashboard-cost-by-project');
    assert.deepEqual(problems, []);
  });
}

test('the usage legend names a model with its provider: gpt-5.5 of three providers is three keys, told apart', async () => {
  const { browser, page, problems } = await openPage(serve.url, { width: 1024, height: 768 });
  open.push(browser);
  await page.keyboard.press('u');
  await page.waitForSelector('[data-testid=usage-chart] rect');
  const keys = await page.locator('[data-testid=usage-chart] figcaption .key').evaluateAll((els) => els.map((e) => e.firstChild.nextSibling.textContent.trim()));
  for (const p of ['openai', 'azure', 'openrouter']) assert.equal(keys.filter((k) => k === `gpt-5.5 · ${p}`).length, 1, JSON.stringify(keys));
  assert.equal(new Set(keys).size, keys.length, `a key shown twice: ${JSON.stringify(keys)}`);
  await shot(page, 'patterns-usage-providers-1024');
  assert.deepEqual(problems, []);
});

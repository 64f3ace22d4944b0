// The patterns dashboard (U): usage over time drawn as a chart (tokens or
// cost, by model or project), the seven patterns listed, in light and dark.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { importFiles, openPage, SAMPLES, shot, startServe } from './harness.mjs';

let serve;
const open = [];
before(async () => {
  serve = await startServe();
  await importFiles(serve, SAMPLES.map((f) => ({ name: basename(f), bytes: readFileSync(f) })));
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

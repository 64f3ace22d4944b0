// A knowledge-graph node's history: a session imported in two steps grows
// its last segment, whose node gets a second version; the node panel lists
// the versions and shows what changed, field by field, as text diffs.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { dropFiles, openPage, readSample, shot, startServe, waitImportDone } from './harness.mjs';

let serve, browser, page, problems;
before(async () => {
  serve = await startServe();
  ({ browser, page, problems } = await openPage(serve.url));
});
after(async () => {
  await browser?.close();
  await serve?.stop();
});

test('the node panel shows a node’s versions and the field diff between two', async () => {
  const full = readSample();
  const lines = full.toString('utf8').split('\n');
  const prefix = Buffer.from(lines.slice(0, Math.floor(lines.length / 3)).join('\n') + '\n');
  const name = 'session-with-compaction.jsonl';

  await page.waitForSelector('[data-testid=empty-state]');
  await dropFiles(page, [{ name, bytes: prefix }]);
  assert.deepEqual(await waitImportDone(page), ['imported']);
  await page.keyboard.press('Escape');
  await dropFiles(page, [{ name, bytes: full }]);
  assert.deepEqual(await waitImportDone(page), ['appended']);
  await page.keyboard.press('Escape');

  // The node that got a second version.
  const graph = await serve.call('Graph', 'Graph', {});
  let nodeId = null;
  for (const n of graph.nodes) {
    if ((await serve.call('Graph', 'NodeVersions', n.id)).length > 1) {
      nodeId = n.id;
      break;
    }
  }
  assert.ok(nodeId, 'no node got a second version');
  const diff = await serve.call('Graph', 'NodeDiff', nodeId, 1, 2);

  await page.evaluate((id) => window.__rhizome.selectNode(id), nodeId);
  const history = page.locator(`[data-testid=node-panel][data-node="${nodeId}"] [data-testid=node-history]`);
  await history.waitFor();
  await history.scrollIntoViewIfNeeded();
  assert.equal(await history.locator('[data-testid=node-version]').count(), 2);
  await page.waitForSelector('[data-testid=field-change]');
  const changes = await history.locator('[data-testid=field-change]').evaluateAll((els) =>
    els.map((e) => ({ path: e.dataset.path, type: e.dataset.type, ins: [...e.querySelectorAll('ins')].map((x) => x.textContent), del: [...e.querySelectorAll('del')].map((x) => x.textContent) })),
  );
  assert.deepEqual(changes.map((c) => c.path), diff.changes.map((c) => c.path));
  const count = changes.find((c) => c.path === 'source.segment.entryCount');
  assert.ok(count, `no entryCount change among ${changes.map((c) => c.path)}`);
  const was = diff.changes.find((c) => c.path === 'source.segment.entryCount');
  // The number as text, diffed: what was removed and added spell the old and new values.
  assert.ok(count.del.join('').length > 0 && count.ins.join('').length > 0, JSON.stringify(count));
  assert.ok(String(was.oldValue).includes(count.del.join('')) && String(was.newValue).includes(count.ins.join('')));
  await history.locator('[data-testid=field-change]').first().scrollIntoViewIfNeeded();
  await shot(page, 'loom-17-node-history');

  // Side by side.
  await history.locator('[data-testid=diff-layout-side]').click();
  await page.waitForSelector('[data-testid=node-history] [data-testid=diff-side]');
  await shot(page, 'loom-18-node-history-side');
  assert.deepEqual(problems, []);
});

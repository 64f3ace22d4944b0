// Dropping a real session imports it, draws its nodes, and a click on the
// canvas opens the node.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { basename } from 'node:path';
import { SAMPLE, clickableNode, dropFiles, openPage, readSample, shot, startServe, waitImportDone, waitNodeCount } from './harness.mjs';

let serve, browser, page, problems;
before(async () => {
  serve = await startServe();
  ({ browser, page, problems } = await openPage(serve.url));
});
after(async () => {
  await browser?.close();
  await serve?.stop();
});

test('drop a real session, see its nodes, click one', async () => {
  await page.waitForSelector('[data-testid=empty-state]');
  await dropFiles(page, [{ name: basename(SAMPLE), bytes: readSample() }]);
  await page.waitForSelector('[data-testid=import-progress]');
  const statuses = await waitImportDone(page);
  assert.deepEqual(statuses, ['imported']);
  const resultText = await page.textContent('[data-testid=import-results]');
  assert.match(resultText, /imported/);
  await shot(page, 'e2e-drop-1-imported');

  const graph = await serve.call('Graph', 'Graph', {});
  assert.ok(graph.nodes.length > 1, `Graph.Graph returned ${graph.nodes.length} nodes`);
  await waitNodeCount(page, graph.nodes.length);
  await page.waitForSelector('[data-testid=empty-state]', { state: 'detached' });
  assert.equal(await page.locator('[data-testid=session-item]').count(), 1);

  // A real click on the canvas, where sigma draws the node.
  await page.keyboard.press('Escape'); // close the import panel
  const target = await clickableNode(page);
  assert.ok(target, 'no node is drawn at an uncovered point of the canvas');
  await page.mouse.click(target.x, target.y);
  await page.waitForSelector(`[data-testid=node-panel][data-node="${target.id}"]`);
  const detail = await serve.call('Graph', 'Node', target.id);
  await page.waitForSelector('[data-testid=node-summary]');
  // The summary the node shows (issue 8): pi's own for a segment a compaction summarised, else the offline one.
  assert.equal((await page.textContent('[data-testid=node-summary]')).trim(), (detail.summary?.text || detail.node.content.summary).trim());
  await page.waitForSelector('[data-testid=message]');
  const first = await serve.call('Library', 'SegmentEntries', target.id, 0, 0);
  const shown = await page.locator('[data-testid=message]').count();
  assert.equal(shown, first.entries.length);
  await shot(page, 'e2e-drop-2-node');

  // An edge in the panel leads to the node at its other end.
  const edges = [...(detail.incoming ?? []), ...(detail.outgoing ?? [])];
  if (edges.length) {
    const other = edges[0].source === target.id ? edges[0].target : edges[0].source;
    await page.click(`[data-testid=edge-link][data-node="${other}"]`);
    await page.waitForSelector(`[data-testid=node-panel][data-node="${other}"]`);
  }

  // The session's timeline, and a jump from it.
  await page.click('[data-testid=session-item]');
  await page.waitForSelector('[data-testid=timeline-segment]');
  const timeline = await serve.call('Library', 'Timeline', detail.node.source.sessionId);
  assert.equal(await page.locator('[data-testid=timeline-segment]').count(), timeline.length);
  const last = timeline[timeline.length - 1];
  await page.click(`[data-testid=timeline-segment][data-node="${last.nodeId}"]`);
  await page.waitForSelector(`[data-testid=node-panel][data-node="${last.nodeId}"]`);
  await page.waitForTimeout(600);
  await shot(page, 'e2e-drop-3-timeline');

  // The Import button's file picker (serve mode): the same file again is unchanged.
  await page.setInputFiles('[data-testid=import-input]', SAMPLE);
  assert.deepEqual(await waitImportDone(page), ['unchanged']);

  // A file that is not a session fails with a reason, shown with it.
  await dropFiles(page, [{ name: 'notes.jsonl', bytes: Buffer.from('this is not a pi session\n') }]);
  const failed = await waitImportDone(page);
  const results = await page.textContent('[data-testid=import-results]');
  if (failed[0] === 'failed') {
    assert.match(results, /notes\.jsonl/);
    const reason = await page.textContent('[data-testid=import-result][data-status=failed] [data-testid=import-file-error]');
    assert.ok(reason.trim().length > 5, `no reason shown for the failed file: ${JSON.stringify(reason)}`);
  } else assert.ok(/malformed/.test(results), `a non-session file was ${failed[0]} with no word of trouble:\n${results}`);
  await shot(page, 'e2e-drop-4-failed');

  assert.deepEqual(problems, []);
});

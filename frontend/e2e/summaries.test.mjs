// Summaries in the window (issue 8, section 1): the three real sample
// sessions dropped on the window are titled by what they were about, not by
// their file names, in the sidebar, the lanes, the graph's labels, the
// toolbar and the session's header; the node panel says where a summary
// came from; a person edits a segment's summary (E) and a session's title
// (the pencil), sees the edit survive a reload, and takes it back; the
// summary model is chosen in Settings, its queue shows in the top bar with
// a Cancel, and a model that fails leaves the summary shown and says so on
// the item.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { SAMPLES, dropFiles, openPage, shot, startServe, waitImportDone, waitNodeCount, analysed } from './harness.mjs';

/** The titles the offline summaries give the three samples (backend/summary golden files). */
const TITLES = {
  'compact-with-images.jsonl': 'Allow startup without API keys (#288)',
  'large-session.jsonl': 'Port over user-message-selector.ts based on the patterns you find',
  'session-with-compaction.jsonl': 'Documentation Review & Update',
};

let serve, graph, sessions;
before(async () => {
  serve = await startServe({ model: { delay: '150ms' } });
  const { browser, page, problems } = await openPage(serve.url);
  try {
    await page.waitForSelector('[data-testid=empty-state]');
    await dropFiles(page, SAMPLES.map((p) => ({ name: p.split('/').pop(), bytes: readFileSync(p) })));
    assert.deepEqual(await waitImportDone(page, 120_000), ['imported', 'imported', 'imported']);
    assert.deepEqual(problems, []);
    // Titles and summaries are written by the analysis that follows the import (issue 25).
    await analysed(serve);
  } finally {
    await browser.close();
  }
  graph = await serve.call('Graph', 'Graph', {});
  sessions = await serve.call('Library', 'Sessions', '');
});
after(async () => {
  await serve?.stop();
});

/** Opens the page with the graph drawn. */
async function open(opts) {
  const o = await openPage(serve.url, opts);
  await waitNodeCount(o.page, graph.nodes.length);
  return o;
}

const sessionOf = (file) => sessions.find((s) => s.path.endsWith(file));
const texts = (page, sel) => page.locator(sel).evaluateAll((els) => els.map((e) => e.textContent.trim()));

describe('offline titles', () => {
  test('the sidebar, the lanes, the toolbar and the session header name sessions by their titles, never their files', async () => {
    const { browser, page, problems } = await open();
    try {
      const shown = await texts(page, '[data-testid=session-title]');
      assert.deepEqual([...shown].sort(), Object.values(TITLES).sort());
      // The lanes' titles (room for them at this size with three sessions).
      await page.waitForSelector('[data-testid=lane-label]');
      const lanes = await texts(page, '[data-testid=lane-label]');
      for (const t of Object.values(TITLES)) assert.ok(lanes.some((l) => l.startsWith(t)), `no lane titled ${t}: ${JSON.stringify(lanes)}`);
      assert.ok(!lanes.some((l) => /\.jsonl|^[0-9a-f]{8}\b/.test(l)), JSON.stringify(lanes));
      // Graph labels are the segments' summary labels: none is a file name or the old extract.
      // (Knowledge nodes, drawn beside their segments, are titled by the item itself.)
      for (const n of graph.nodes.filter((n) => !n.knowledge)) {
        assert.ok(n.label && !/\.jsonl$|^User asked:/.test(n.label) && n.label.split(/\s+/).length <= 8, `label ${JSON.stringify(n.label)}`);
      }
      await shot(page, 'summaries-1-titles');
      // Offline summaries take milliseconds: no progress bar flashes for them.
      await page.waitForTimeout(1500);
      assert.equal(await page.locator('[data-testid=summary-progress]').count(), 0);

      // One session: the toolbar and the header above its timeline.
      const s = sessionOf('session-with-compaction.jsonl');
      await page.locator(`[data-testid=session-item][data-session="${s.id}"]`).click();
      await page.waitForSelector('[data-testid=session-header]');
      assert.equal((await page.locator('.toolbar .scope strong').textContent()).trim(), TITLES['session-with-compaction.jsonl']);
      const header = page.locator('[data-testid=session-header]');
      assert.equal((await header.locator('[data-testid=session-header-title]').textContent()).trim(), TITLES['session-with-compaction.jsonl']);
      assert.equal((await header.locator('[data-testid=session-header-summary]').textContent()).trim(), s.summary);
      assert.match(await header.locator('[data-testid=summary-source]').textContent(), /offline summary|written by the session's agent/);
      await shot(page, 'summaries-2-session-header');
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
    }
  });
});

describe('a person edits', () => {
  test('E edits the open node’s summary: it shows as the person’s, relabels the node and survives a reload; revert brings the generated one back', async () => {
    const { browser, page, problems } = await open();
    try {
      const node = graph.nodes.find((n) => n.type !== 'other');
      await page.evaluate((id) => window.__rhizome.selectNode(id), node.id);
      const heading = page.locator(`[data-testid=node-panel][data-node="${node.id}"] [data-testid=node-summary]`);
      await heading.waitFor();
      const generated = (await heading.textContent()).trim();
      assert.match(await heading.getAttribute('data-source'), /^(offline|pi)$/);

      await page.locator('body').click({ position: { x: 5, y: 5 } });
      await page.evaluate((id) => window.__rhizome.selectNode(id), node.id);
      await page.keyboard.press('e');
      const editor = page.locator('[data-testid=summary-editor]');
      await editor.waitFor();
      assert.equal(await editor.locator('[data-testid=summary-edit-text]').inputValue(), generated);
      const mine = 'Ported the message selector to the shared selector pattern, after two failed tries.';
      await editor.locator('[data-testid=summary-edit-text]').fill(mine);
      await shot(page, 'summaries-3-editor');
      await page.keyboard.press('Control+Enter');
      await editor.waitFor({ state: 'detached' });
      await page.waitForFunction(
        ([id, t]) => document.querySelector(`[data-testid=node-panel][data-node="${id}"] [data-testid=node-summary]`)?.textContent?.trim() === t,
        [node.id, mine],
      );
      assert.equal(await heading.getAttribute('data-source'), 'human');
      assert.match(await page.locator('[data-testid=node-panel] [data-testid=summary-source]').textContent(), /edited by you/);
      await shot(page, 'summaries-4-edited');

      // The library keeps it: a reload shows it, and the node's label in the graph follows it.
      await page.reload();
      await waitNodeCount(page, graph.nodes.length);
      await page.evaluate((id) => window.__rhizome.selectNode(id), node.id);
      await heading.waitFor();
      assert.equal((await heading.textContent()).trim(), mine);
      const relabelled = (await serve.call('Graph', 'Graph', {})).nodes.find((n) => n.id === node.id);
      assert.equal(relabelled.label, 'Ported the message selector');

      // Revert: the generated summary again; the edit stays a version.
      await page.keyboard.press('e');
      await editor.waitFor();
      await editor.locator('[data-testid=summary-revert]').click();
      await editor.waitFor({ state: 'detached' });
      await page.waitForFunction(
        ([id, t]) => document.querySelector(`[data-testid=node-panel][data-node="${id}"] [data-testid=node-summary]`)?.textContent?.trim() === t,
        [node.id, generated],
      );
      const v = await serve.call('Summaries', 'Get', `rhizome:node/${node.id}`);
      assert.ok(v.versions.some((x) => x.source === 'human' && x.text === mine), JSON.stringify(v.versions));
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
    }
  });

  test('the pencil edits a session’s title: the sidebar, the lane and the header show it, after a reload too', async () => {
    const { browser, page, problems } = await open({ width: 1024, height: 700 });
    try {
      const s = sessionOf('large-session.jsonl');
      const row = page.locator(`[data-testid=session-item][data-session="${s.id}"]`);
      await row.hover();
      await page.locator(`[data-testid=summary-edit][data-item="rhizome:session/${s.id}"]`).click();
      const editor = page.locator('[data-testid=summary-editor]');
      await editor.waitFor();
      assert.equal(await editor.locator('[data-testid=summary-edit-title]').inputValue(), TITLES['large-session.jsonl']);
      await editor.locator('[data-testid=summary-edit-title]').fill('Theme selectors in the TUI');
      await editor.locator('[data-testid=summary-save]').click();
      await editor.waitFor({ state: 'detached' });
      const title = row.locator('[data-testid=session-title]');
      await page.waitForFunction((id) => document.querySelector(`[data-session="${id}"] [data-testid=session-title]`)?.textContent?.trim() === 'Theme selectors in the TUI', s.id);

      await page.reload();
      await waitNodeCount(page, graph.nodes.length);
      assert.equal((await title.textContent()).trim(), 'Theme selectors in the TUI');
      assert.ok(await title.evaluate((e) => e.classList.contains('edited')));
      await row.click();
      const header = page.locator('[data-testid=session-header]');
      await header.waitFor();
      assert.equal((await header.locator('[data-testid=session-header-title]').textContent()).trim(), 'Theme selectors in the TUI');
      assert.match(await header.locator('[data-testid=summary-source]').textContent(), /edited by you/);
      await page.waitForSelector('[data-testid=lane-label]');
      assert.ok((await texts(page, '[data-testid=lane-label]')).some((l) => l.startsWith('Theme selectors in the TUI')));
      await shot(page, 'summaries-5-session-title-1024');
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
    }
  });
});

describe('a project', () => {
  test('says what its sessions were about, under its name in the toolbar, and the pencil edits it', async () => {
    const { browser, page, problems } = await open();
    try {
      const [proj] = await serve.call('Library', 'Projects');
      assert.ok(proj.summary, `no summary for ${proj.path}`);
      const row = page.locator(`[data-testid=project-item][data-project="${proj.path}"]`);
      await row.click();
      const line = page.locator('[data-testid=project-summary]');
      await line.waitFor();
      assert.equal((await line.textContent()).trim(), proj.summary);
      assert.ok(Object.values(TITLES).some((t) => proj.summary.includes(t)), proj.summary);
      await row.hover();
      await page.locator(`[data-testid=summary-edit][data-item^="rhizome:project/"]`).click();
      const editor = page.locator('[data-testid=summary-editor]');
      await editor.waitFor();
      assert.equal(await editor.locator('[data-testid=summary-edit-title]').count(), 0, 'a project is named by its folder');
      await editor.locator('[data-testid=summary-edit-text]').fill('The pi coding agent: API keys at startup, theme selectors and its documentation.');
      await editor.locator('[data-testid=summary-save]').click();
      await editor.waitFor({ state: 'detached' });
      await page.waitForFunction(() => document.querySelector('[data-testid=project-summary]')?.textContent?.trim().startsWith('The pi coding agent'));
      await shot(page, 'summaries-10-project');
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
    }
  });
});

describe('the loom', () => {
  test('a loom tree is listed with its summary, which the pencil edits (the tree keeps its own title)', async () => {
    const v = await serve.call('Loom', 'CreateTree', { mode: 'dialogue', title: 'Lighthouse', rootText: 'Write a short story about a lighthouse keeper who finds a message in a bottle.' });
    const id = v.tree.id;
    const n1 = await serve.call('Loom', 'AddNode', id, v.tree.rootNodeId, 'The keeper, Ada, found the bottle wedged between two rocks after the October storm.');
    await serve.call('Loom', 'AddNode', id, n1.id, 'Continue: what did the message say?');
    await serve.call('Summaries', 'Regenerate', [`rhizome:loom/${id}`]);
    let gen = null;
    // Wait for the summary of the whole tree: the one made when the tree
    // was created (one node) is stale until the queue has remade it.
    const settled = (g) => g?.text && !g.stale && !g.queued;
    for (let i = 0; i < 100 && !settled(gen); i++) {
      gen = await serve.call('Summaries', 'Get', `rhizome:loom/${id}`).catch(() => null);
      if (!settled(gen)) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(gen?.text, 'no summary made for the tree');

    const { browser, page, problems } = await open();
    try {
      await page.click('[data-testid=view-loom]');
      const row = page.locator(`[data-testid=loom-tree-item][data-tree-id="${id}"]`);
      await row.waitFor();
      assert.equal((await row.locator('[data-testid=loom-tree-summary]').textContent()).trim(), gen.text);
      await row.hover();
      await page.locator(`[data-testid=summary-edit][data-item="rhizome:loom/${id}"]`).click();
      const editor = page.locator('[data-testid=summary-editor]');
      await editor.waitFor();
      assert.equal(await editor.locator('[data-testid=summary-edit-title]').count(), 0, 'a loom tree keeps its own title');
      await editor.locator('[data-testid=summary-edit-text]').fill('Ada finds a bottle after the storm; the branches argue about what its message says.');
      await editor.locator('[data-testid=summary-save]').click();
      await editor.waitFor({ state: 'detached' });
      await page.waitForFunction(
        (id) => document.querySelector(`[data-tree-id="${id}"] [data-testid=loom-tree-summary]`)?.textContent?.trim().startsWith('Ada finds a bottle'),
        id,
      );
      assert.equal((await row.locator('[data-testid=row-label]').textContent()).trim(), 'Lighthouse');
      await shot(page, 'summaries-9-loom-list');
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
    }
  });
});

describe('a loom node', () => {
  test('the node in focus shows its summary beside its links, and the pencil edits it', async () => {
    const v = await serve.call('Loom', 'CreateTree', { mode: 'dialogue', title: 'Harbour', rootText: 'Describe a harbour town at dawn, from the ferry.' });
    const id = v.tree.id;
    const n1 = await serve.call('Loom', 'AddNode', id, v.tree.rootNodeId, 'Gulls argue over the fish market while the first ferry sounds its horn across the water.');
    const uri = `rhizome:loom/${id}/${n1.id}`;
    const { browser, page, problems } = await open();
    try {
      await page.click('[data-testid=view-loom]');
      await page.click(`[data-testid=loom-tree-item][data-tree-id="${id}"]`);
      await page.click(`[data-testid=loom-step][data-node-id="${n1.id}"]`);
      const panel = page.locator(`[data-testid=loom-node-summary][data-item="${uri}"]`);
      await panel.waitFor();
      await panel.locator('[data-testid=loom-node-summary-text]').waitFor();
      const before = (await panel.locator('[data-testid=loom-node-summary-text]').textContent()).trim();
      assert.match(before, /Gulls|ferry/, 'the offline summary is the node\'s own words');
      await panel.locator(`[data-testid=summary-edit][data-item="${uri}"]`).click();
      const editor = page.locator('[data-testid=summary-editor]');
      await editor.waitFor();
      await editor.locator('[data-testid=summary-edit-text]').fill('Dawn in the harbour: gulls, the fish market, the first ferry.');
      await editor.locator('[data-testid=summary-save]').click();
      await editor.waitFor({ state: 'detached' });
      await page.waitForFunction(
        (uri) => document.querySelector(`[data-testid=loom-node-summary][data-item="${uri}"] [data-testid=loom-node-summary-text]`)?.textContent?.trim().startsWith('Dawn in the harbour'),
        uri,
      );
      const got = await serve.call('Summaries', 'Get', uri);
      assert.equal(got.edited, true);
      await shot(page, 'summaries-11-loom-node');
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
    }
  });
});

describe('search', () => {
  test('the search box finds a session by the title a person gave it and opens it', async () => {
    const { browser, page, problems } = await open();
    try {
      const s = sessionOf('large-session.jsonl');
      await page.click('[data-testid=search-input]');
      await page.keyboard.type('theme selectors');
      const hit = page.locator('[data-testid=search-result]').first();
      await hit.waitFor();
      assert.equal((await hit.locator('.kind').textContent()).trim(), 'session');
      assert.equal((await hit.locator('.title').textContent()).trim(), 'Theme selectors in the TUI');
      const titles = await texts(page, '[data-testid=search-result] .title');
      assert.ok(!titles.some((t) => t.includes('.jsonl')), JSON.stringify(titles));
      await shot(page, 'summaries-8-search');
      await hit.click();
      await page.waitForSelector(`[data-testid=node-panel] [data-testid=node-summary]`);
      const first = graph.nodes.filter((n) => n.sessionId === s.id).sort((a, b) => a.segment - b.segment)[0];
      await page.waitForSelector(`[data-testid=node-panel][data-node="${first.id}"]`);
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
    }
  });
});

describe('with a model', () => {
  test('the summary model set in Settings fills the queue: progress in the top bar, Cancel empties it', async () => {
    const { browser, page, problems } = await open();
    try {
      await page.click('[data-testid=settings-button]');
      const dlg = page.locator('[data-testid=settings-dialog]');
      await dlg.waitFor();
      await dlg.locator('[data-testid=summaries-use-model]').check();
      await dlg.locator('[data-testid=summaries-save]').click();
      await page.waitForSelector('[data-testid=summaries-in-use]');
      assert.match(await dlg.locator('[data-testid=summaries-in-use]').textContent(), /rhizome-test/);
      await page.keyboard.press('Escape');

      const bar = page.locator('[data-testid=summary-progress]');
      await bar.waitFor({ timeout: 20_000 });
      assert.match(await bar.textContent(), /Summarising\s+with\s+.*rhizome-test/);
      await shot(page, 'summaries-6-progress');
      await bar.locator('[data-testid=summary-cancel]').click();
      await bar.waitFor({ state: 'detached', timeout: 20_000 });
      const q = await serve.call('Summaries', 'QueueStatus');
      assert.equal(q.queued + q.running, 0, JSON.stringify(q));
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
    }
  });

  test('a model that cannot be reached leaves the summary shown and says so on the item', async () => {
    const { browser, page, problems } = await open();
    try {
      // A summary model of its own, on a port nothing listens on.
      await serve.call('Settings', 'SetSummaries', { useModel: true, provider: 'openai', baseUrl: 'http://127.0.0.1:9/v1', model: 'nobody-home', concurrency: 2, loomTreeEvery: 10 });
      const s = sessionOf('compact-with-images.jsonl');
      await serve.call('Summaries', 'Regenerate', [`rhizome:session/${s.id}`]);
      await page.locator(`[data-testid=session-item][data-session="${s.id}"]`).click();
      const header = page.locator('[data-testid=session-header]');
      await header.waitFor();
      await header.locator('[data-testid=summary-error]').waitFor({ timeout: 30_000 });
      assert.match(await header.locator('[data-testid=summary-error]').getAttribute('title'), /127\.0\.0\.1:9|connect|refused/i);
      // The offline title is still the one shown.
      assert.equal((await header.locator('[data-testid=session-header-title]').textContent()).trim(), TITLES['compact-with-images.jsonl']);
      await shot(page, 'summaries-7-model-error');
      await serve.call('Summaries', 'Cancel');
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
    }
  });
});

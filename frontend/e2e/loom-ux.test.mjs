// The loom view as a new user met it (issue 6, section 4), at 1024x700,
// against `rhizome serve` with the fake model: importing a tree already in the
// library offers a copy (409, not 500) and every toast closes; the focus
// leaves the prompt after a generation; pruning the node you are on moves
// to the nearest visible one; one word for each thing (node counts, who
// wrote an edit); Settings shows every invalid field.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPage, overlaps, shot, startServe, unreachable } from './harness.mjs';

const W = 1024;
const H = 700;
const idle = (page) => page.waitForFunction(() => !window.__rhizome.loom().generating);
const indicator = (page) => page.textContent('[data-testid=sibling-indicator]');

let serve;
before(async () => {
  serve = await startServe({ model: { delay: '5ms' } });
});
after(async () => {
  await serve?.stop();
});

/** A dialogue tree with three continuations of its prompt, made through the use cases. */
async function dialogueTree(title) {
  const v = await serve.call('Loom', 'CreateTree', { mode: 'dialogue', title, rootText: 'Write a haiku about moss.' });
  const g = await serve.call('Loom', 'Generate', { treeId: v.tree.id, activePath: { nodeId: v.tree.rootNodeId }, n: 3 });
  return { tree: v.tree, kids: g.nodes };
}

/** Opens the page on the loom view with tree id open. */
async function openTree(id) {
  const o = await openPage(serve.url, { width: W, height: H });
  await o.page.click('[data-testid=view-loom]');
  await o.page.click(`[data-testid=loom-tree-item][data-tree-id="${id}"]`);
  await o.page.waitForFunction((tid) => window.__rhizome.loom().treeId === tid && document.querySelector('[data-testid=loom-step]'), id);
  // The tree map (folded away by default in a narrow window).
  if ((await o.page.getAttribute('[data-testid=toggle-map]', 'aria-pressed')) !== 'true') await o.page.click('[data-testid=toggle-map]');
  await o.page.waitForSelector('[data-testid=map-node]');
  return o;
}

describe('loom at 1024x700', () => {
  test('item 4: a tree already in the library is a conflict that offers a copy; every toast closes with Esc or a click', async () => {
    const { tree, kids } = await dialogueTree('Moss for copying');
    await serve.call('Loom', 'SetBookmark', tree.id, kids[1].id, true, 'keep');
    const dir = mkdtempSync(join(tmpdir(), 'rhizome-e2e-copy-'));
    const file = join(dir, 'moss.loom.json');
    writeFileSync(file, await serve.call('Loom', 'Export', tree.id));
    const { browser, page, problems } = await openTree(tree.id);
    try {
      await page.setInputFiles('[data-testid=loom-import-input]', file);
      const dialog = page.locator('[data-testid=loom-import-duplicate]');
      await dialog.waitFor({ timeout: 10_000 });
      assert.match(await dialog.textContent(), /already in the library/);
      await shot(page, 'ux-4-duplicate-1024');
      // The server said 409 (a conflict), not 500.
      assert.ok(problems.some((p) => /status of 409/.test(p)), problems.join('\n'));
      assert.ok(!problems.some((p) => /status of 500/.test(p)), problems.join('\n'));
      await page.click('[data-testid=import-as-copy]');
      await dialog.waitFor({ state: 'detached' });
      await page.waitForFunction((tid) => {
        const l = window.__rhizome.loom();
        return l.treeId && l.treeId !== tid;
      }, tree.id);
      const copyId = (await page.evaluate(() => window.__rhizome.loom())).treeId;
      const copy = await serve.call('Loom', 'Tree', copyId);
      assert.equal(copy.tree.title, 'Moss for copying (copy)');
      assert.equal(copy.tree.copiedFrom, tree.id);
      assert.equal(copy.tree.copySource, 'moss.loom.json');
      const orig = await serve.call('Loom', 'Tree', tree.id);
      assert.deepEqual(copy.nodes.map((n) => n.text), orig.nodes.map((n) => n.text));
      assert.ok(copy.nodes.every((n) => !orig.nodes.some((o) => o.id === n.id)), 'the copy kept an id');
      assert.deepEqual(copy.nodes.map((n) => n.bookmarked), orig.nodes.map((n) => n.bookmarked));
      assert.deepEqual(await serve.call('Loom', 'Verify', copyId), []);
      assert.equal(await page.locator('[data-testid=loom-tree-item]').count(), (await serve.call('Loom', 'ListTrees', false)).length);
      // The copy says where it came from.
      assert.match(await page.getAttribute('[data-testid=loom-copy-badge]', 'title'), /A copy of “Moss for copying”, imported from moss\.loom\.json/);
      await shot(page, 'ux-4-copied-1024');

      // A toast (a file that is no loom tree): it leaves Generate free, and Esc closes it.
      const bad = join(dir, 'notes.txt');
      writeFileSync(bad, 'hello');
      const toast = page.locator('[data-testid=toast]');
      await page.setInputFiles('[data-testid=loom-import-input]', bad);
      await toast.waitFor();
      const t = await toast.boundingBox();
      const gen = await page.locator('[data-testid=generate-button]').boundingBox();
      assert.ok(!overlaps(t, gen), `the toast ${JSON.stringify(t)} covers Generate ${JSON.stringify(gen)}`);
      assert.equal(await unreachable(page, '[data-testid=generate-button]'), '');
      await shot(page, 'ux-4-toast-1024');
      await page.keyboard.press('Escape');
      await toast.waitFor({ state: 'detached' });
      // And a click on it closes it.
      await page.setInputFiles('[data-testid=loom-import-input]', bad);
      await toast.waitFor();
      await toast.click({ position: { x: 20, y: 10 } });
      await toast.waitFor({ state: 'detached' });
      assert.deepEqual(problems.filter((p) => !/status of 409/.test(p)), []);
    } finally {
      await browser.close();
    }
  });

  test('item 6: after the first generation of a new tree the focus leaves the prompt, so arrows walk the continuations', async () => {
    const { browser, page, problems } = await openPage(serve.url, { width: W, height: H });
    try {
      await page.click('[data-testid=view-loom]');
      await page.click('[data-testid=new-tree-button]');
      await page.fill('[data-testid=new-tree-root]', 'Write a haiku about lichen.');
      await page.keyboard.press('Control+Enter');
      await page.waitForSelector('[data-testid=new-tree-dialog]', { state: 'detached' });
      await page.waitForFunction(() => document.querySelectorAll('[data-testid=loom-step]').length === 1);
      // The person is in the prompt and asks for continuations from there (Alt+G works while typing).
      await page.click('[data-testid=composer-text]');
      await page.keyboard.press('Alt+g');
      await page.waitForFunction(() => document.querySelectorAll('[data-testid=loom-step]').length === 2);
      await idle(page);
      await page.waitForFunction(() => document.querySelector('[data-testid=sibling-indicator]')?.textContent === '1/3');
      await page.waitForTimeout(200);
      const focused = await page.evaluate(() => document.activeElement?.getAttribute('data-testid'));
      assert.notEqual(focused, 'composer-text', 'the focus stayed in the prompt');
      await page.keyboard.press('ArrowRight');
      await page.waitForFunction(() => document.querySelector('[data-testid=sibling-indicator]')?.textContent === '2/3');
      await shot(page, 'ux-6-arrows-after-generation-1024');
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
    }
  });

  test('a path read that the loom:changed reload overtakes still focuses the node just added (a busy machine)', async () => {
    const v = await serve.call('Loom', 'CreateTree', { mode: 'dialogue', title: 'Overtaken', rootText: 'Write a haiku about bark.' });
    const { browser, page, problems } = await openTree(v.tree.id);
    try {
      // The composer's own read of the path is held until another read (the
      // reload that AddNode's loom:changed sets off) has been answered: the
      // order a busy machine can give.
      let answered;
      const another = new Promise((r) => (answered = r));
      let reads = 0;
      await page.route('**/api/Loom/ActivePathView*', async (route) => {
        if (++reads === 1) {
          await another;
          await route.continue();
          return;
        }
        await route.fulfill({ response: await route.fetch() });
        answered();
      });
      await page.click('[data-testid=composer-text]');
      await page.keyboard.type('Bark holds the rain.');
      await page.keyboard.press('Control+Enter');
      await page.waitForFunction(() => window.__rhizome.loom().steps.length === 2);
      const added = await page.evaluate(() => window.__rhizome.loom().steps[1].id);
      await page.waitForFunction((id) => window.__rhizome.loom().focus === id, added, { timeout: 10_000 });
      assert.ok(reads >= 2, `${reads} reads of the path`);
      await page.waitForSelector(`[data-testid=links-panel][data-item="rhizome:loom/${v.tree.id}/${added}"]`, { state: "attached" });
      await page.unroute('**/api/Loom/ActivePathView*');
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
    }
  });

  test('item 7: pruning the node you are on moves to the nearest visible one', async () => {
    const { tree, kids } = await dialogueTree('Moss to prune');
    await serve.call('Loom', 'SetActivePath', tree.id, { nodeId: kids[1].id });
    const { browser, page, problems } = await openTree(tree.id);
    try {
      await page.waitForFunction(() => document.querySelector('[data-testid=sibling-indicator]')?.textContent === '2/3');
      await page.locator('[data-testid=reading-pane]').click({ position: { x: 5, y: 5 } });
      await page.keyboard.press('p');
      await page.waitForSelector(`[data-testid=map-node][data-node-id="${kids[1].id}"][data-hidden=true]`);
      // The next visible sibling.
      await page.waitForFunction((id) => window.__rhizome.loom().activePath?.nodeId === id, kids[2].id);
      assert.equal(await indicator(page), '3/3');
      await shot(page, 'ux-7-pruned-moved-1024');
      // The last one pruned: the previous visible one (skipping the pruned second).
      await page.keyboard.press('p');
      await page.waitForFunction((id) => window.__rhizome.loom().activePath?.nodeId === id, kids[0].id);
      // None left: the parent.
      await page.keyboard.press('p');
      await page.waitForFunction((id) => window.__rhizome.loom().activePath?.nodeId === id, tree.rootNodeId);
      const steps = await page.evaluate(() => window.__rhizome.loom().steps);
      assert.deepEqual(steps.map((s) => s.id), [tree.rootNodeId]);
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
    }
  });

  test('item 8: one word for each thing: the node counts are what the map draws', async () => {
    // Buffer mode: an edit is a version at the same place in the map.
    const v = await serve.call('Loom', 'CreateTree', { mode: 'buffer', title: 'Keeper', rootText: 'The lighthouse keeper had not spoken in a year.' });
    const g = await serve.call('Loom', 'Generate', { treeId: v.tree.id, activePath: { nodeId: v.tree.rootNodeId }, n: 2 });
    await serve.call('Loom', 'AddNode', v.tree.id, g.nodes[0].id, ' Then the boat came.');
    const version = await serve.call('Loom', 'Edit', v.tree.id, g.nodes[0].id, `${g.nodes[0].text} Quietly.`);
    const { browser, page, problems } = await openTree(v.tree.id);
    try {
      const map = await page.locator('[data-testid=map-node]').count();
      const header = await page.textContent('[data-testid=loom-view] .toolbar .title .faint');
      const item = await page.textContent(`[data-testid=loom-tree-item][data-tree-id="${v.tree.id}"]`);
      await shot(page, 'ux-8-buffer-counts-1024');
      assert.match(header, new RegExp(`^${map} nodes`), `header "${header}", the map draws ${map}`);
      assert.match(item, new RegExp(`${map} nodes`), `tree list "${item}", the map draws ${map}`);
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
    }
  });

  test('item 8: one word for each thing: an edit is named alike in the reading pane and History', async () => {
    const v = await serve.call('Loom', 'CreateTree', { mode: 'buffer', title: 'Keeper 2', rootText: 'The lighthouse keeper had not spoken in a year.' });
    const g = await serve.call('Loom', 'Generate', { treeId: v.tree.id, activePath: { nodeId: v.tree.rootNodeId }, n: 2 });
    const version = await serve.call('Loom', 'Edit', v.tree.id, g.nodes[0].id, `${g.nodes[0].text} Quietly.`);
    await serve.call('Loom', 'SetActivePath', v.tree.id, { nodeId: version.id });
    const { browser, page, problems } = await openTree(v.tree.id);
    try {
      // Who wrote the version: the focus bar and History say the same.
      await page.click(`[data-testid=loom-step][data-node-id="${version.id}"]`);
      const bar = (await page.textContent('[data-testid=focus-bar] .who')).trim();
      await page.keyboard.press('d');
      await page.waitForSelector('[data-testid=history-dialog] [data-testid=loom-version]');
      const hist = (await page.textContent(`[data-testid=loom-version][data-node-id="${version.id}"] .who`)).trim();
      await shot(page, 'ux-8-buffer-history-1024');
      assert.equal(hist, bar);
      assert.match(bar, /edited/);
      await page.keyboard.press('Escape');
      await browser.close();

      // Dialogue mode: the turn of an edited model node and its History entry.
      const { tree, kids } = await dialogueTree('Moss to edit');
      const edited = await serve.call('Loom', 'Edit', tree.id, kids[0].id, `» ${kids[0].text}`);
      await serve.call('Loom', 'SetActivePath', tree.id, { nodeId: edited.id });
      const o = await openTree(tree.id);
      const turn = (await o.page.textContent(`[data-testid=loom-step][data-node-id="${edited.id}"] .who`)).trim();
      await o.page.click(`[data-testid=loom-step][data-node-id="${edited.id}"] .text`);
      await o.page.keyboard.press('d');
      await o.page.waitForSelector('[data-testid=history-dialog] [data-testid=loom-version]');
      const entry = (await o.page.textContent(`[data-testid=loom-version][data-node-id="${edited.id}"] .who`)).trim();
      const original = (await o.page.textContent(`[data-testid=loom-version][data-node-id="${kids[0].id}"] .who`)).trim();
      await shot(o.page, 'ux-8-dialogue-history-1024');
      assert.equal(entry, turn, 'the reading pane and History name the edit differently');
      assert.equal(original, 'rhizome-test');
      assert.equal(entry, 'rhizome-test · edited');
      assert.deepEqual(o.problems, []);
      await o.browser.close();
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
    }
  });

  test('item 9b: Settings shows every invalid field at once', async () => {
    const { browser, page, problems } = await openPage(serve.url, { width: W, height: H });
    try {
      await page.click('[data-testid=settings-button]');
      await page.waitForSelector('[data-testid=settings-dialog]');
      await page.fill('[data-testid=settings-base-url]', 'ftp://nowhere');
      await page.fill('[data-testid=settings-model]', '');
      await page.fill('[data-testid=settings-temperature]', 'hot');
      await page.fill('[data-testid=settings-n]', '0');
      await page.click('[data-testid=settings-save]');
      await page.waitForSelector('[data-testid=settings-error]');
      const text = await page.textContent('[data-testid=settings-dialog]');
      await shot(page, 'ux-9b-settings-all-errors-1024');
      for (const field of [/Base URL: an http/, /Model: name the model/, /Temperature: a number/, /Continuations: a whole number/]) {
        assert.match(text, field);
      }
      for (const id of ['settings-base-url', 'settings-model', 'settings-temperature', 'settings-n']) {
        assert.equal(await page.getAttribute(`[data-testid=${id}]`, 'aria-invalid'), 'true', id);
      }
      assert.equal(await page.getAttribute('[data-testid=settings-max-tokens]', 'aria-invalid'), null);
      // Fixing them one by one: an error goes with its field.
      await page.fill('[data-testid=settings-model]', 'rhizome-test');
      await page.click('[data-testid=settings-save]');
      await page.waitForTimeout(100);
      assert.doesNotMatch(await page.textContent('[data-testid=settings-dialog]'), /Model: name the model/);
      assert.match(await page.textContent('[data-testid=settings-dialog]'), /Temperature: a number/);
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
    }
  });

  test('every loom control can be used at 1024x700', async () => {
    const { tree } = await dialogueTree('Moss at 1024');
    const { browser, page, problems } = await openTree(tree.id);
    try {
      const why = [];
      for (const sel of ['[data-testid=authorship-raw]', '[data-testid=authorship-semantic]', '[data-testid=loom-export]', '[data-testid=toggle-map]',
        '[data-testid=generate-button]', '[data-testid=composer-text]', '[data-testid=new-tree-button]', '[data-testid=sibling-indicator]']) {
        const w = await unreachable(page, sel);
        if (w) why.push(w);
      }
      await shot(page, 'ux-loom-1024');
      assert.deepEqual(why, []);
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
    }
  });
});

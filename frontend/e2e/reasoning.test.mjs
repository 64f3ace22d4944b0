// The reasoning view (issue 12 §3, §4) against a real `rhizome serve`: a
// MemoBrain snapshot dropped on the window with its conversation, a fold
// applied from the paste box (a bad one first: its error inline), the
// history slider moved back to before the fold, the DOM showing the nodes as
// they were; a node's notes and turns; the keyboard; screenshots at 1024x700
// and 1280x900, light and dark.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { dropFiles, openPage, REPO, shot, startServe, unreachable } from './harness.mjs';

const FIXTURES = join(REPO, 'backend/memobrain/testdata');
const snapshot = () => readFileSync(join(FIXTURES, 'example_snapshot.json'));
const messages = () => readFileSync(join(FIXTURES, 'example_messages.json'));

// MemoBrain's example after a fold of node 3 (a subtask) with its evidence
// 7 and 8: summary 10 takes their turns, 1 -> 3 and 3 -> 9 are re-routed.
const FOLD = `{"flush_ops": [], "fold_ops": [{"ids": [3, 7, 8], "rationale": "birth year and works are settled",
  "notes": [{"role": "assistant", "content": "Looked up Chipperfield's biography and the office's museums."},
            {"role": "user", "content": "Born 1953 in London; the office also restored the Neues Museum."}]}]}`;

// A memory patch as the model writes it: evidence under the summary.
const PATCH = `{"add_nodes": [{"tmp_id": "e1", "kind": "evidence", "thought": [
  {"role": "assistant", "content": "search(\\"Kunsthaus Zürich extension opening\\")"},
  {"role": "user", "content": "The extension opened on 9 October 2021."}]}],
 "add_edges": [{"src": 10, "dst": "e1", "rationale": "the opening date"}]}`;

/** The reasoning nodes drawn, by id: their state and diff mark. */
const drawn = (page) =>
  page.$$eval('[data-testid=reasoning-node]', (els) =>
    Object.fromEntries(els.map((e) => [e.getAttribute('data-node-id'), { state: e.getAttribute('data-state'), mark: e.getAttribute('data-mark') }])),
  );
/** The ids of the nodes drawn (wholly or partly) outside the canvas. */
const outside = (page) =>
  page.evaluate(() => {
    const c = document.querySelector('[data-testid=reasoning-canvas]').getBoundingClientRect();
    return [...document.querySelectorAll('[data-testid=reasoning-node]')]
      .filter((e) => {
        const r = e.getBoundingClientRect();
        return r.left < c.left || r.top < c.top || r.right > c.right || r.bottom > c.bottom;
      })
      .map((e) => Number(e.getAttribute('data-node-id')));
  });
const stepShown = (page) => page.getAttribute('[data-testid=history-label]', 'data-step');
const settled = (page, step) =>
  page.waitForFunction(
    (s) => {
      const r = window.__rhizome.reasoning();
      return r.step === s && !r.stepLoading;
    },
    step,
  );

let serve;
before(async () => {
  serve = await startServe();
});
after(async () => {
  await serve?.stop();
});

describe('the reasoning view', () => {
  test('imports a snapshot, applies a fold, and the history slider goes back to before it', async () => {
    const { browser, page, problems } = await openPage(serve.url, { width: 1280, height: 900 });
    try {
      await page.keyboard.press('r');
      await page.waitForSelector('[data-testid=reasoning-empty]');
      await shot(page, 'reasoning-empty-1280');
      await dropFiles(page, [
        { name: 'example_snapshot.json', bytes: snapshot() },
        { name: 'example_messages.json', bytes: messages() },
      ]);
      await page.waitForSelector('[data-testid=reasoning-node]');
      const before = await drawn(page);
      assert.deepEqual(Object.keys(before).sort(), ['1', '2', '3', '4', '5', '6', '7', '8', '9']);
      assert.equal(await stepShown(page), '0');
      assert.equal(await page.getAttribute('[data-node-id="1"]', 'data-kind'), 'task');
      // The import's report goes away (Esc), uncovering the tools.
      await page.keyboard.press('Escape');
      await page.waitForFunction(() => !document.querySelector('[data-testid=import-progress]'));

      // A fold that names a node the graph lacks: refused, the error inline,
      // the graph as it was.
      await page.click('[data-testid=apply-open]');
      await page.fill('[data-testid=apply-input]', FOLD.replace('[3, 7, 8]', '[3, 7, 42]'));
      await page.click('[data-testid=apply-button]');
      const err = await page.waitForSelector('[data-testid=apply-error]');
      assert.match(await err.textContent(), /fold_ops\[0\] \(fold\): ids\[2\]: node 42 is not in the graph/);
      assert.deepEqual(await drawn(page), before);

      // The fold itself.
      await page.fill('[data-testid=apply-input]', FOLD);
      await page.click('[data-testid=apply-button]');
      await page.waitForSelector('[data-testid=reasoning-node][data-node-id="10"]');
      await settled(page, 1);
      await page.waitForFunction(() => !document.querySelector('[data-testid=apply-box]'));
      const after = await drawn(page);
      assert.equal(after['10'].state, 'active');
      assert.equal(after['10'].mark, 'added', 'the step shown marks the summary it made');
      for (const id of ['3', '7', '8']) assert.equal(after[id], undefined, `folded node ${id} is inside its summary`);
      assert.equal(await page.getAttribute('[data-testid=history-slider]', 'max'), '1');
      assert.ok(await page.$('[data-testid=reasoning-edge][data-edge="1>10"].rerouted'), 'the edge re-routed to the summary is marked');
      await shot(page, 'reasoning-after-fold-1280');

      // The folded span opens inside its summary.
      await page.click('[data-testid=reasoning-node][data-node-id="10"] [data-testid=span-toggle]');
      await page.waitForSelector('[data-testid=span-box][data-summary="10"]');
      const opened = await drawn(page);
      for (const id of ['3', '7', '8']) assert.equal(opened[id]?.state, 'folded', `node ${id} shown folded in the span`);
      await page.waitForTimeout(100);
      assert.deepEqual(await outside(page), [], 'the span opened is in view, with the rest of the graph');
      await shot(page, 'reasoning-span-open-1280');

      // Back to before the fold: the slider.
      const slider = page.locator('[data-testid=history-slider]');
      await slider.focus();
      await page.keyboard.press('ArrowLeft');
      await settled(page, 0);
      await page.waitForFunction(() => !document.querySelector('[data-testid=reasoning-node][data-node-id="10"]'));
      const back = await drawn(page);
      assert.deepEqual(Object.keys(back).sort(), ['1', '2', '3', '4', '5', '6', '7', '8', '9'], 'the nodes before the fold');
      for (const id of ['3', '7', '8']) assert.equal(back[id].state, 'active');
      assert.match(await page.textContent('[data-testid=history-label]'), /Step 0 of 1/);
      // The header counts the graph as it was then, and says so.
      const meta = (await page.textContent('[data-testid=reasoning-meta]')).replace(/\s+/g, ' ');
      assert.match(meta, /6 evidence, 2 subtask, 1 task · 8 edges/);
      assert.doesNotMatch(meta, /folded|summary/);
      assert.match(meta, /at step 0 of 1/);
      await shot(page, 'reasoning-step-0-1280');
      // And forward again with ].
      await page.locator('[data-testid=reasoning-canvas]').focus();
      await page.keyboard.press(']');
      await settled(page, 1);
      await page.waitForSelector('[data-testid=reasoning-node][data-node-id="10"]');
      assert.match(await page.textContent('[data-testid=history-label]'), /fold 3 nodes into 10/);

      // A memory patch, pasted: a bad edge first (refused, naming the op),
      // then the patch itself: evidence 11 under summary 10, at the next turns.
      await page.click('[data-testid=apply-open]');
      await page.fill('[data-testid=apply-input]', PATCH.replace('"dst": "e1"', '"dst": 99'));
      await page.click('[data-testid=apply-button]');
      const perr = await page.waitForSelector('[data-testid=apply-error]');
      assert.match(await perr.textContent(), /add_edges\[0\] \(add_edge\): dst 99 is not a node of the graph or of this patch/);
      assert.equal(await page.getAttribute('[data-testid=history-slider]', 'max'), '1', 'a refused patch adds no step');
      await page.fill('[data-testid=apply-input]', PATCH);
      await page.click('[data-testid=apply-button]');
      await page.waitForSelector('[data-testid=reasoning-node][data-node-id="11"]');
      await settled(page, 2);
      assert.equal((await drawn(page))['11'].mark, 'added');
      assert.equal(await page.getAttribute('[data-node-id="11"]', 'data-kind'), 'evidence');
      assert.ok(await page.$('[data-testid=reasoning-edge][data-edge="10>11"]'), 'the edge of the patch is drawn');
      assert.match(await page.textContent('[data-testid=history-label]'), /Step 2 of 2\s*patch: \+1 node, \+1 edge · turns 16–17/);
      await shot(page, 'reasoning-after-patch-1280');
      // One step back: the fold, without the patch's node.
      await page.locator('[data-testid=reasoning-canvas]').focus();
      await page.keyboard.press('[');
      await settled(page, 1);
      await page.waitForFunction(() => !document.querySelector('[data-testid=reasoning-node][data-node-id="11"]'));
      await page.keyboard.press('End');
      await settled(page, 2);

      // A flush: node 6 stays, drawn as its notes, marked as changed by the step.
      await page.click('[data-testid=apply-open]');
      await page.fill('[data-testid=apply-input]', '{"flush_ops": [{"id": 6, "rationale": "the 2008 competition is beside the point"}], "fold_ops": []}');
      await page.click('[data-testid=apply-button]');
      await settled(page, 3);
      await page.waitForSelector('[data-testid=reasoning-node][data-node-id="6"][data-state=flushed]');
      assert.equal((await drawn(page))['6'].mark, 'changed');
      assert.match(await page.textContent('[data-node-id="6"]'), /assistant: search\("Kunsthaus extension competition 2008 winner"\)/);
      assert.match(await page.textContent('[data-testid=history-label]'), /Step 3 of 3\s*flush node 6 · the 2008 competition is beside the point/);
      await shot(page, 'reasoning-after-flush-1280');

      // Export: the snapshot as MemoBrain writes it, with the fold and the patch.
      const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=reasoning-export]')]);
      assert.match(download.suggestedFilename(), /^who-designed-the-2020-extension.*\.json$/);
      const exported = JSON.parse(readFileSync(await download.path(), 'utf8'));
      const nodes = exported.memory.nodes;
      assert.deepEqual(Object.keys(nodes).sort((a, b) => a - b), ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '11']);
      for (const id of ['3', '7', '8']) assert.equal(nodes[id].active, false, `node ${id} exported folded`);
      assert.equal(nodes['6'].active, 'Flushed');
      assert.equal(nodes['10'].kind, 'summary');
      assert.deepEqual(nodes['11'].related_turn_ids, [16, 17]);
      assert.ok(exported.memory.edges.some((e) => e.src === 10 && e.dst === 11));

      // The keyboard: arrows move between nodes, Enter opens one, Esc closes it.
      await page.locator('[data-testid=reasoning-canvas]').focus();
      await page.keyboard.press('ArrowRight');
      const cur = await page.evaluate(() => window.__rhizome.reasoning().cursor);
      assert.ok(cur === 2 || cur === 10, `→ from the task goes to a child, got ${cur}`);
      await page.keyboard.press('Enter');
      const details = await page.waitForSelector('[data-testid=reasoning-details]');
      assert.equal(await details.getAttribute('data-node-id'), String(cur));
      await page.keyboard.press('Escape');
      await page.waitForFunction(() => !document.querySelector('[data-testid=reasoning-details]'));
      // The two refused applies, and nothing else.
      assert.equal(problems.filter((p) => /status of 422/.test(p)).length, 2);
      assert.deepEqual(problems.filter((p) => !/status of 422/.test(p)), []);
    } finally {
      await browser.close();
    }
  });

  test('a node shows its notes with their roles and the turns it stands for; nothing from the file runs', async () => {
    // A snapshot whose notes hold markup: it must stay text.
    const hostile = JSON.parse(snapshot().toString());
    hostile.memory.nodes['4'].thought[0].content = '<img src=x onerror="window.__pwned=1"> search("<b>bold</b>")';
    await serve.call('Import', 'ImportFiles', [
      { name: 'hostile.json', content: Buffer.from(JSON.stringify(hostile)).toString('base64') },
    ]);
    const { browser, page, problems } = await openPage(serve.url, { width: 1280, height: 900 });
    try {
      await page.keyboard.press('r');
      await page.click('[data-testid=reasoning-graph-item] >> nth=0');
      await page.waitForSelector('[data-testid=reasoning-node][data-node-id="4"]');
      await page.click('[data-testid=reasoning-node][data-node-id="4"]');
      const d = await page.waitForSelector('[data-testid=reasoning-details][data-node-id="4"]');
      await page.waitForTimeout(100);
      assert.ok((await drawn(page))['4'] && !(await outside(page)).includes(4), 'the node open stays in view beside its details');
      const notes = await d.$$eval('[data-testid=details-notes] li', (lis) => lis.map((li) => li.textContent.replace(/\s+/g, ' ').trim()));
      assert.equal(notes.length, 2);
      assert.match(notes[0], /^assistant <img src=x onerror="window.__pwned=1"> search\("<b>bold<\/b>"\)/);
      assert.equal(await page.evaluate(() => window.__pwned), undefined);
      assert.equal(await page.$('[data-testid=reasoning-details] img'), null);
      assert.ok(await page.$('[data-testid=reasoning-links-slot][data-item$="/4"]'), 'the slot the Links panel goes in');
      await shot(page, 'reasoning-details-1280');
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
    }
  });

  for (const scheme of ['light', 'dark']) {
    for (const [w, h] of [
      [1024, 700],
      [1280, 900],
    ]) {
      test(`at ${w}x${h}, ${scheme}: everything in reach`, async () => {
        const { browser, page, problems } = await openPage(serve.url, { width: w, height: h, colorScheme: scheme });
        try {
          await page.keyboard.press('r');
          await page.click('[data-testid=reasoning-graph-item] >> nth=-1');
          await page.waitForSelector('[data-testid=reasoning-node][data-node-id="10"]');
          await page.click('[data-testid=reasoning-node][data-node-id="10"] [data-testid=span-toggle]');
          await page.waitForSelector('[data-testid=span-box]');
          await page.click('[data-testid=reasoning-node][data-node-id="10"]');
          await page.waitForSelector('[data-testid=reasoning-details]');
          await page.click('[data-testid=apply-open]');
          await page.waitForSelector('[data-testid=apply-input]');
          for (const sel of ['[data-testid=history-slider]', '[data-testid=apply-button]', '[data-testid=reasoning-export]', '[data-testid=history-back]']) {
            assert.equal(await unreachable(page, sel), '');
          }
          await shot(page, `reasoning-${w}x${h}-${scheme}`);
          assert.deepEqual(problems, []);
        } finally {
          await browser.close();
        }
      });
    }
  }

  test('the picker finds a node of another reasoning graph; the link opens that graph at the node', async () => {
    const graph = (task, evidence) => ({
      memory: {
        nodes: {
          1: { node_id: 1, kind: 'task', related_turn_ids: [0, 1], thought: `Begin to solve the task: ${task}`, active: true },
          2: { node_id: 2, kind: 'evidence', related_turn_ids: [2, 3], thought: [{ role: 'assistant', content: evidence }], active: true },
        },
        edges: [{ src: 1, dst: 2, rationale: 'found for it' }],
      },
    });
    const files = [
      { name: 'from.json', content: Buffer.from(JSON.stringify(graph('choose a cache', 'LRU fits the access pattern'))).toString('base64') },
      { name: 'to.json', content: Buffer.from(JSON.stringify(graph('size the cache', 'the working set is 40 MB'))).toString('base64') },
    ];
    const rep = await serve.call('Import', 'ImportFiles', files);
    const [from, to] = rep.files.map((f) => f.reasoning.graphId);
    const target = `rhizome:reasoning/${to}/2`;
    const { browser, page, problems } = await openPage(serve.url, { width: 1280, height: 900 });
    try {
      await page.keyboard.press('r');
      await page.click(`[data-testid=reasoning-graph-item][data-graph-id="${from}"]`);
      await page.click('[data-testid=reasoning-node][data-node-id="2"]');
      // The picker finds the other graph's node by its words.
      await page.click(`[data-testid=links-panel][data-item="rhizome:reasoning/${from}/2"] [data-testid=link-to]`);
      await page.waitForSelector('[data-testid=link-dialog] [data-testid=picker-input]');
      await page.keyboard.type('working set');
      await page.click(`[data-testid=picker-hit][data-uri="${target}"]`);
      await page.waitForSelector('[data-testid=type-picker]');
      await page.keyboard.press('Enter');
      await page.waitForSelector('[data-testid=link-dialog]', { state: 'detached' });
      const chip = page.locator(`[data-testid=link-row][data-other="${target}"] [data-testid=item-chip]`);
      await chip.waitFor();
      assert.match(await chip.textContent(), /evidence 2: the working set is 40 MB/);
      assert.equal(await page.getAttribute(`[data-testid=link-row][data-other="${target}"]`, 'data-broken'), 'false');
      await chip.click();
      await page.waitForSelector(`[data-testid=reasoning-graph-item][data-graph-id="${to}"].selected`);
      await page.waitForSelector('[data-testid=reasoning-details][data-node-id="2"]');
      assert.match(await page.textContent('[data-testid=reasoning-details]'), /the working set is 40 MB/);
      await shot(page, 'reasoning-link-opened');
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
    }
  });

  test('a 10,000-node graph opens, only what is in view drawn, and its history steps', async () => {
    // The task, 100 subtasks under it, 9,899 evidence nodes under them.
    const nodes = { 1: { node_id: 1, kind: 'task', related_turn_ids: [0, 1], thought: 'Begin to solve the task: a graph of 10,000 nodes', active: true } };
    const edges = [];
    for (let i = 2; i <= 10_000; i++) {
      const sub = i <= 101;
      nodes[i] = { node_id: i, kind: sub ? 'subtask' : 'evidence', related_turn_ids: [2 * i, 2 * i + 1], thought: [{ role: 'assistant', content: `step ${i}` }, { role: 'user', content: `result ${i}` }], active: true };
      edges.push({ src: sub ? 1 : 2 + ((i - 102) % 100), dst: i, rationale: sub ? 'a part of the task' : 'found for it' });
    }
    const bytes = Buffer.from(JSON.stringify({ memory: { nodes, edges } }));
    const rep = await serve.call('Import', 'ImportFiles', [{ name: 'big.json', content: bytes.toString('base64') }]);
    const big = rep.files[0].reasoning;
    assert.equal(big.nodes, 10_000);
    const { browser, page, problems } = await openPage(serve.url, { width: 1280, height: 900 });
    try {
      await page.keyboard.press('r');
      await page.click(`[data-testid=reasoning-graph-item][data-graph-id="${big.graphId}"]`);
      await page.waitForSelector('[data-testid=reasoning-node][data-node-id="1"]');
      const shown = Object.keys(await drawn(page)).length;
      assert.ok(shown > 5 && shown < 200, `${shown} nodes drawn of 10,000: only those in view`);
      await page.click('[data-testid=apply-open]');
      await page.fill('[data-testid=apply-input]', '{"flush_ops": [{"id": 5000, "rationale": "x"}], "fold_ops": [{"ids": [2, 102, 202], "rationale": "y", "notes": [{"role": "user", "content": "z"}]}]}');
      await page.click('[data-testid=apply-button]');
      await settled(page, 2);
      assert.equal(await page.getAttribute('[data-testid=history-slider]', 'max'), '2');
      await page.locator('[data-testid=reasoning-canvas]').focus();
      await page.keyboard.press('Home');
      await settled(page, 0);
      assert.equal(await page.evaluate(() => window.__rhizome.reasoning().nodes.length), 10_000, 'every node at step 0, none folded');
      await shot(page, 'reasoning-10000-nodes');
      assert.equal(problems.length, 0, problems.join('\n'));
    } finally {
      await browser.close();
    }
  });
});

// Issue 12 §2, §3: MemoBrain's loop run on a real pi session by the model
// (the fake one, scripted with the replies a model writes), the graph it
// makes opened, and a node's turns linked to the session's entries by
// rhizome: URIs, each opening its entry in the graph view.
describe('the reasoning graph of a session', () => {
  const PATCH1 = JSON.stringify({
    add_nodes: [
      { tmp_id: 'tmp1', kind: 'subtask', thought: [{ role: 'assistant', content: 'Read the theme docs.' }, { role: 'user', content: 'Docs read.' }] },
      { tmp_id: 'tmp2', kind: 'evidence', thought: [{ role: 'assistant', content: 'read theme.md' }, { role: 'user', content: 'Themes define every color token.' }] },
    ],
    add_edges: [
      { src: 1, dst: 'tmp1', rationale: 'decompose' },
      { src: 'tmp1', dst: 'tmp2', rationale: 'found' },
    ],
  });
  const EMPTY = '{"add_nodes": [], "add_edges": []}';
  let modelServe;
  before(async () => {
    modelServe = await startServe({ model: { delay: '0ms', script: [PATCH1, ...Array(300).fill(EMPTY)] } });
    // A real session cut short: its first 40 lines, a few turns of a real agent.
    const lines = readFileSync(join(REPO, 'app/samples/large-session.jsonl'), 'utf8').split('\n').slice(0, 40).join('\n') + '\n';
    await modelServe.call('Import', 'ImportFiles', [{ name: 'large-session.jsonl', content: Buffer.from(lines).toString('base64') }]);
  });
  after(async () => {
    await modelServe?.stop();
  });

  test('is made by the model, and a node opens the session entries of its turns', async () => {
    const { browser, page, problems } = await openPage(modelServe.url, { width: 1280, height: 900 });
    try {
      await page.keyboard.press('r');
      await page.waitForSelector('[data-testid=reasoning-empty]');
      await page.keyboard.press('m');
      await page.waitForSelector('[data-testid=reasoning-run-dialog]');
      await page.selectOption('[data-testid=run-session]', { index: 1 });
      await page.fill('[data-testid=run-budget]', '1000');
      await shot(page, 'reasoning-run-dialog-1280');
      await page.click('[data-testid=run-start]');
      await page.waitForFunction(() => !document.querySelector('[data-testid=reasoning-run-dialog]'), null, { timeout: 60_000 });
      await page.waitForSelector('[data-testid=reasoning-node][data-node-id="3"]');
      const nodes = await drawn(page);
      assert.deepEqual(Object.keys(nodes).sort(), ['1', '2', '3']);
      assert.match(await page.textContent('[data-testid=history-label]'), /Step \d+ of \d+/);
      assert.equal(await page.getAttribute('[data-node-id="2"]', 'data-kind'), 'subtask');

      // Node 2 stands for the session's first turn after the task: its entries, by URI.
      await page.click('[data-testid=reasoning-node][data-node-id="2"]');
      await page.waitForSelector('[data-testid=reasoning-details][data-node-id="2"] [data-testid=turn-entry]');
      const uris = await page.$$eval('[data-testid=turn-entry]', (els) => els.map((e) => e.getAttribute('data-uri')));
      assert.ok(uris.length >= 2, `entries of the turn: ${uris}`);
      for (const u of uris) assert.match(u, /^rhizome:entry\/[^/]+\/[0-9a-f]+$/);
      await shot(page, 'reasoning-of-a-session-1280');
      await page.click('[data-testid=turn-entry] >> nth=0');
      await page.waitForFunction(() => window.__rhizome.state().selected !== null);
      assert.equal(await page.getAttribute('[data-testid=view-graph]', 'aria-current'), 'page', 'the graph view is shown');
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
    }
  });
});

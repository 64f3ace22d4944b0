// Links between items (issue 8, sections 2 and 3): the picker links a loom
// node to a knowledge-graph node by keyboard, the link shows from both sides
// and follows across views, a deleted link comes back with Undo, a note's
// [[ mention becomes a link, a link's note with <script> stays text, and a
// search hit opens the exact message with the words highlighted.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, shot, startServe, waitNodeCount, analysed } from './harness.mjs';

let serve, browser, page, problems;
let tree, graph;
before(async () => {
  serve = await startServe();
  await serve.call('Import', 'ImportSamples');
  await analysed(serve);
  ({ tree } = await serve.call('Loom', 'CreateTree', { mode: 'dialogue', title: 'Moss and poems', rootText: 'Write about moss, slowly.' }));
  graph = await serve.call('Graph', 'Graph', {});
  ({ browser, page, problems } = await openPage(serve.url, { width: 1280, height: 800 }));
  await waitNodeCount(page, graph.nodes.length);
});
after(async () => {
  await browser?.close();
  await serve?.stop();
});

const rootUri = () => `rhizome:loom/${tree.id}/${tree.rootNodeId}`;

/**
 * The node whose messages say "harmonious" (in a pasted diff hunk). Found by
 * its messages, not its label: a node is titled by its summary, which leaves
 * pasted diffs out.
 */
async function harmoniousNode() {
  const hit = (await serve.call('Search', 'Query', 'harmonious', 10)).find((h) => h.kind === 'entry');
  assert.ok(hit, 'no message says "harmonious" in the samples');
  const node = graph.nodes.find((n) => n.id === hit.nodeId);
  assert.ok(node, `the node of ${hit.uri} is not in the graph`);
  return node;
}

/** In the open picker: types query, then moves with ↓ until uri's hit is active, and Enter. */
async function pickByKeyboard(query, uri) {
  await page.keyboard.type(query);
  await page.waitForSelector(`[data-testid=picker-hit][data-uri="${uri}"]`);
  for (let i = 0; i < 20; i++) {
    if ((await page.getAttribute(`[data-testid=picker-hit][data-uri="${uri}"]`, 'aria-selected')) === 'true') break;
    await page.keyboard.press('ArrowDown');
  }
  assert.equal(await page.getAttribute(`[data-testid=picker-hit][data-uri="${uri}"]`, 'aria-selected'), 'true', `${uri} never became the active hit`);
  await page.keyboard.press('Enter');
}

test('K on a loom node, the picker and the type make a link; it shows from both sides, follows across views, and Undo brings a deleted one back', async () => {
  const poem = graph.nodes.find((n) => /little poem/.test(n.label));
  assert.ok(poem, 'no node about the little poem in the samples');
  const nodeUri = `rhizome:node/${poem.id}`;

  await page.keyboard.press('l');
  await page.click(`[data-testid=loom-tree-item][data-tree-id="${tree.id}"]`);
  await page.waitForSelector(`[data-testid=links-panel][data-item="${rootUri()}"]`);
  await page.click('[data-testid=reading-pane]');
  await page.keyboard.press('k');
  await page.waitForSelector('[data-testid=link-dialog] [data-testid=picker-input]');
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'picker-input');
  await pickByKeyboard('little poem', nodeUri);

  // The type: filtered by meaning as typed, a note in markdown with a script in it.
  await page.waitForSelector('[data-testid=type-picker]');
  await shot(page, 'links-1-type-picker');
  await page.keyboard.type('leads');
  await page.waitForSelector('[data-testid=type-option][data-relation=LEADS_TO][aria-selected=true]');
  await page.fill('[data-testid=link-note]', 'The poem came after this. <script>window.__pwned = 1</script> **moss**');
  await page.click('[data-testid=type-filter]');
  await page.keyboard.press('Enter');
  await page.waitForSelector('[data-testid=link-dialog]', { state: 'detached' });

  // From the loom node: outgoing, LEADS_TO, its note as text.
  const row = page.locator(`[data-testid=links-panel][data-item="${rootUri()}"] [data-testid=link-group][data-dir=out][data-type=LEADS_TO] [data-testid=link-row][data-other="${nodeUri}"]`);
  await row.waitFor();
  const note = row.locator('[data-testid=link-note-text]');
  assert.match(await note.textContent(), /<script>window.__pwned = 1<\/script>/);
  assert.equal(await note.locator('script').count(), 0);
  assert.equal(await note.locator('strong').textContent(), 'moss');
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  const made = await serve.call('Links', 'Of', rootUri());
  assert.equal(made.outgoing.length, 1);
  assert.equal(made.outgoing[0].type, 'LEADS_TO');
  await shot(page, 'links-2-loom-panel');

  // Follow it: the graph opens the node, whose panel lists the backlink.
  await row.locator('[data-testid=item-chip]').click();
  await page.waitForSelector(`[data-testid=node-panel][data-node="${poem.id}"]`);
  const back = page.locator(`[data-testid=links-panel][data-item="${nodeUri}"] [data-testid=link-group][data-dir=back][data-type=LEADS_TO] [data-testid=link-row][data-other="${rootUri()}"]`);
  await back.waitFor();
  await back.scrollIntoViewIfNeeded();
  await shot(page, 'links-3-node-backlink');

  // Delete from this side, then Undo: the link is back, the same ends, type and note.
  await back.hover();
  await back.locator('[data-testid=link-delete]').click();
  await back.waitFor({ state: 'detached' });
  assert.equal((await serve.call('Links', 'Of', nodeUri)).backlinks.length, 0);
  await page.waitForSelector('[data-testid=link-undo-bar]');
  await shot(page, 'links-4-deleted-undo');
  await page.click('[data-testid=link-undo]');
  await back.waitFor();
  const again = (await serve.call('Links', 'Of', nodeUri)).backlinks;
  assert.equal(again.length, 1);
  assert.deepEqual([again[0].source, again[0].type, again[0].note], [rootUri(), 'LEADS_TO', made.outgoing[0].note]);

  // Change its type and note from this side.
  const undone = page.locator(`[data-testid=links-panel][data-item="${nodeUri}"] [data-testid=link-row][data-other="${rootUri()}"]`);
  await undone.hover();
  await undone.locator('[data-testid=link-edit]').click();
  await page.selectOption('[data-testid=link-type-edit]', 'INFORMS');
  await page.fill('[data-testid=link-note-edit]', 'It informed the poem.');
  await page.click('[data-testid=link-note-save]');
  const informs = page.locator(`[data-testid=links-panel][data-item="${nodeUri}"] [data-testid=link-group][data-dir=back][data-type=INFORMS] [data-testid=link-row][data-other="${rootUri()}"]`);
  await informs.waitFor();
  assert.equal((await informs.locator('[data-testid=link-note-text]').textContent()).trim(), 'It informed the poem.');
  const changed = (await serve.call('Links', 'Of', rootUri())).outgoing;
  assert.deepEqual(changed.map((l) => [l.type, l.note]), [['INFORMS', 'It informed the poem.']]);

  // And back across to the loom node by its chip.
  await informs.locator('[data-testid=item-chip]').click();
  await page.waitForFunction((tid) => window.__rhizome.loom().treeId === tid, tree.id);
  await page.waitForSelector(`[data-testid=links-panel][data-item="${rootUri()}"] [data-testid=link-row][data-other="${nodeUri}"]`);
  assert.deepEqual(problems, []);
});

test('a note on a node: [[ opens the picker, the mention renders as a chip and becomes a link; marks toggle', async () => {
  const node = await harmoniousNode();
  const target = graph.nodes.find((n) => /little poem/.test(n.label));
  await page.keyboard.press('g');
  await page.evaluate((id) => window.__rhizome.selectNode(id), node.id);
  await page.waitForSelector(`[data-testid=node-panel][data-node="${node.id}"] [data-testid=note-add]`);
  await page.click('[data-testid=note-add]');
  await page.waitForSelector('[data-testid=note-input]');
  await page.keyboard.type('Compare with [[little poem');
  await page.waitForSelector(`[data-testid=mention-picker] [data-testid=picker-hit][data-uri="rhizome:node/${target.id}"]`);
  await shot(page, 'links-5-mention-picker');
  for (let i = 0; i < 20; i++) {
    if ((await page.getAttribute(`[data-testid=mention-picker] [data-testid=picker-hit][data-uri="rhizome:node/${target.id}"]`, 'aria-selected')) === 'true') break;
    await page.keyboard.press('ArrowDown');
  }
  await page.keyboard.press('Enter');
  const text = await page.inputValue('[data-testid=note-input]');
  assert.match(text, new RegExp(`^Compare with \\[\\[rhizome:node/${target.id}\\|[^\\]]+\\]\\]$`));
  await page.keyboard.type(' <img src=x onerror="window.__pwned=2"> <script>window.__pwned=3</script>');
  await page.keyboard.press('Control+Enter');
  const chip = page.locator('[data-testid=note-text] a.mention');
  await chip.waitFor();
  assert.equal(await chip.getAttribute('href'), `rhizome:node/${target.id}`);
  assert.equal(await page.locator('[data-testid=note-text] img').count(), 0);
  assert.equal(await page.locator('[data-testid=note-text] script').count(), 0);
  assert.match(await page.locator('[data-testid=note-text]').textContent(), /<script>window.__pwned=3<\/script>/);
  // The mention made a RELATES_TO link from the note (an item of its own), shown under it.
  const saved = await serve.call('Notes', 'Get', `rhizome:node/${node.id}`);
  await page.waitForSelector(
    `[data-testid=notes-panel] [data-testid=links-panel][data-item="${saved.uri}"] [data-testid=link-group][data-type=RELATES_TO] [data-testid=link-row][data-other="rhizome:node/${target.id}"]`,
  );
  await page.click('[data-testid=mark-starred]');
  await page.waitForSelector('[data-testid=mark-starred][aria-pressed=true]');
  assert.deepEqual((await serve.call('Notes', 'Get', `rhizome:node/${node.id}`)).marks, ['starred']);
  await page.locator('[data-testid=notes-panel]').scrollIntoViewIfNeeded();
  await shot(page, 'links-6-note-mention');
  // The chip opens the node it names.
  await chip.click();
  await page.waitForSelector(`[data-testid=node-panel][data-node="${target.id}"]`);
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  assert.deepEqual(problems, []);
});

test('a search hit on a message opens that message with the words highlighted; a loom node hit opens the loom', async () => {
  const hits = await serve.call('Search', 'Query', 'harmonious', 10);
  const entry = hits.find((h) => h.kind === 'entry');
  assert.ok(entry, 'no message hit for "harmonious"');
  const entryId = entry.uri.split('/').pop();
  await page.fill('[data-testid=search-input]', 'harmonious');
  await page.waitForSelector(`[data-testid=search-result][data-uri="${entry.uri}"]`);
  await page.click(`[data-testid=search-result][data-uri="${entry.uri}"]`);
  await page.waitForSelector(`[data-testid=message][data-entry="${entryId}"][data-focused=true]`);
  const marked = await page.waitForFunction(() => {
    const h = CSS.highlights.get('rhizome-hit');
    return h && h.size > 0 && [...h].map((r) => r.toString().toLowerCase());
  });
  const words = await marked.jsonValue();
  assert.ok(words.every((w) => w === 'harmonious'), `highlighted ${words}`);
  const inMessage = await page.evaluate(
    (id) => [...CSS.highlights.get('rhizome-hit')].every((r) => document.querySelector(`[data-testid=message][data-entry="${id}"]`).contains(r.startContainer)),
    entryId,
  );
  assert.ok(inMessage, 'a highlight outside the message opened');
  await shot(page, 'links-7-search-hit-message');

  const loomHits = await serve.call('Search', 'Query', 'moss slowly', 10);
  const ln = loomHits.find((h) => h.kind === 'loomNode');
  assert.ok(ln, `no loom node hit: ${JSON.stringify(loomHits.map((h) => h.kind))}`);
  await page.fill('[data-testid=search-input]', 'moss slowly');
  await page.waitForSelector(`[data-testid=search-result][data-uri="${ln.uri}"]`);
  await page.click(`[data-testid=search-result][data-uri="${ln.uri}"]`);
  await page.waitForFunction((tid) => window.__rhizome.loom().treeId === tid, tree.id);
  await page.waitForFunction(() => (CSS.highlights.get('rhizome-hit')?.size ?? 0) > 0);

  // A note hit opens the node it is on, the note's words highlighted.
  const noteHits = await serve.call('Search', 'Query', 'compare', 10);
  const nh = noteHits.find((h) => h.kind === 'note');
  assert.ok(nh, `no note hit: ${JSON.stringify(noteHits.map((h) => h.kind))}`);
  await page.fill('[data-testid=search-input]', 'compare');
  await page.waitForSelector(`[data-testid=search-result][data-uri="${nh.uri}"]`);
  await page.click(`[data-testid=search-result][data-uri="${nh.uri}"]`);
  await page.waitForFunction(() => {
    const h = CSS.highlights.get('rhizome-hit');
    const note = document.querySelector('[data-testid=notes-panel] [data-testid=note-text]');
    return h && h.size > 0 && note && [...h].every((r) => note.contains(r.startContainer) && r.toString().toLowerCase() === 'compare');
  });
  assert.deepEqual(problems, []);
});

test('"Loom from here" on a message starts a tree from its text, linked back DERIVED_FROM', async () => {
  const target = graph.nodes.find((n) => /little poem/.test(n.label));
  await page.keyboard.press('g');
  await page.fill('[data-testid=search-input]', 'little poem');
  await page.waitForSelector(`[data-testid=search-result][data-uri="rhizome:node/${target.id}"]`);
  await page.click(`[data-testid=search-result][data-uri="rhizome:node/${target.id}"]`);
  await page.waitForSelector(`[data-testid=node-panel][data-node="${target.id}"] [data-testid=messages][data-loaded]:not([data-loaded="0"])`);
  const msg = page.locator(`[data-testid=node-panel][data-node="${target.id}"] [data-testid=message][data-role=user]`).first();
  await msg.waitFor();
  const entryId = await msg.getAttribute('data-entry');
  const before = (await serve.call('Loom', 'ListTrees', false)).length;
  await msg.hover();
  await msg.locator('[data-testid=start-loom]').click();
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid=loom-tree-item]').length === n + 1, before);
  const id = await page.evaluate(() => window.__rhizome.loom().treeId);
  assert.notEqual(id, tree.id);
  const v = await serve.call('Loom', 'Tree', id);
  const root = `rhizome:loom/${id}/${v.tree.rootNodeId}`;
  const row = page.locator(`[data-testid=links-panel][data-item="${root}"] [data-testid=link-group][data-type=DERIVED_FROM] [data-testid=link-row]`);
  await row.waitFor();
  assert.match(await row.getAttribute('data-other'), new RegExp(`^rhizome:entry/.+/${entryId}$`));
  await shot(page, 'links-8-loom-from-here');
  assert.deepEqual(problems, []);
});

test('dragging a graph node onto another links them; the link is drawn in its own style, with a legend toggle', async () => {
  await page.keyboard.press('g');
  await page.keyboard.press('Escape');
  await page.waitForSelector('[data-testid=node-panel]', { state: 'detached' });
  // Two nodes of different sessions, both on the canvas and uncovered.
  const ends = await page.evaluate(() => {
    const free = (id) => {
      const p = window.__rhizome.nodePosition(id);
      const el = p && document.elementFromPoint(p.x, p.y);
      return el && el.tagName === 'CANVAS' ? p : null;
    };
    const ids = window.__rhizome.nodeIds();
    for (const a of ids) for (const b of ids) if (a < b && free(a) && free(b)) return { a, b, pa: free(a), pb: free(b) };
    return null;
  });
  assert.ok(ends, 'no two free nodes on the canvas');
  const a = graph.nodes.find((n) => n.id === ends.a);
  const b = graph.nodes.find((n) => n.id === ends.b);
  assert.notEqual(a.sessionId, undefined);
  await page.mouse.move(ends.pa.x, ends.pa.y);
  await page.mouse.down();
  await page.mouse.move((ends.pa.x + ends.pb.x) / 2, (ends.pa.y + ends.pb.y) / 2 + 20, { steps: 6 });
  await page.mouse.move(ends.pb.x, ends.pb.y, { steps: 6 });
  await page.mouse.up();
  // The dialog opens at the type, the target chosen by the drop.
  await page.waitForSelector('[data-testid=link-dialog] [data-testid=type-picker]');
  assert.equal(await page.getAttribute('[data-testid=link-dialog] [data-testid=item-chip]', 'data-uri'), `rhizome:node/${b.id}`);
  await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'type-filter', null, { timeout: 3000 }).catch(async () => {
    await shot(page, 'debug-drag');
    throw new Error(`focus: ${await page.evaluate(() => document.activeElement?.outerHTML.slice(0, 200))}`);
  });
  await page.keyboard.type('similar');
  await page.waitForSelector('[data-testid=type-option][data-relation=SIMILAR_TO][aria-selected=true]');
  await page.keyboard.press('Enter');
  await page.waitForSelector('[data-testid=link-dialog]', { state: 'detached' });
  const out = (await serve.call('Links', 'Of', `rhizome:node/${a.id}`)).outgoing;
  assert.ok(out.some((l) => l.target === `rhizome:node/${b.id}` && l.type === 'SIMILAR_TO'), JSON.stringify(out));
  // The graph reads again: the link is an edge of type "link", in the legend, and hides with it.
  if ((await page.getAttribute('[data-testid=legend-toggle]', 'aria-expanded')) !== 'true') await page.click('[data-testid=legend-toggle]');
  const legend = page.locator('[data-testid=legend-edge-type][data-type=link]');
  await legend.waitFor();
  assert.match(await legend.textContent(), /your links\s*1/);
  await shot(page, 'links-9-graph-link-edge');
  await legend.click();
  await page.waitForSelector('[data-testid=legend-edge-type][data-type=link].off');
  await legend.click();
  assert.deepEqual(problems, []);
});

test('[[ in the loom composer: the picker opens above it, the mention becomes a chip in the node and a RELATES_TO link', async () => {
  const target = graph.nodes.find((n) => /little poem/.test(n.label));
  const uri = `rhizome:node/${target.id}`;
  await page.keyboard.press('l');
  await page.click(`[data-testid=loom-tree-item][data-tree-id="${tree.id}"]`);
  await page.waitForFunction((tid) => window.__rhizome.loom().treeId === tid, tree.id);
  await page.click('[data-testid=composer-text]');
  await page.keyboard.type('And then, as in [[little poem');
  const hit = `[data-testid=mention-picker] [data-testid=picker-hit][data-uri="${uri}"]`;
  await page.waitForSelector(hit);
  for (let i = 0; i < 20 && (await page.getAttribute(hit, 'aria-selected')) !== 'true'; i++) await page.keyboard.press('ArrowDown');
  await shot(page, 'links-10-loom-mention-picker');
  await page.keyboard.press('Enter'); // chooses: the composer does not send
  assert.match(await page.inputValue('[data-testid=composer-text]'), new RegExp(`\\[\\[${uri}\\|`));
  assert.equal((await page.evaluate(() => window.__rhizome.loom().steps.length)), 1);
  await page.keyboard.type(', moss again.');
  await page.keyboard.press('Control+Enter');
  await page.waitForFunction(() => window.__rhizome.loom().steps.length === 2);
  const added = await page.evaluate(() => window.__rhizome.loom().steps[1].id);
  const chip = page.locator(`[data-testid=loom-step][data-node-id="${added}"] [data-testid=loom-mention][data-uri="${uri}"]`);
  await chip.waitFor();
  // The chip reads the item's title (as the picker showed it, cut at 120 characters).
  const { title } = await serve.call('Links', 'Resolve', uri);
  const alias = title.replace(/[[\]|\n\r]+/g, ' ').replace(/\s+/g, ' ').trim();
  assert.equal(await chip.textContent(), alias.length > 120 ? `${alias.slice(0, 119)}…` : alias);
  const of = await serve.call('Links', 'Of', `rhizome:loom/${tree.id}/${added}`);
  assert.deepEqual(of.outgoing.map((l) => [l.type, l.target]), [['RELATES_TO', uri]]);
  await page.waitForSelector(`[data-testid=links-panel][data-item="rhizome:loom/${tree.id}/${added}"] [data-testid=link-row][data-other="${uri}"]`);
  await shot(page, 'links-11-loom-mention-chip');
  await chip.click();
  await page.waitForSelector(`[data-testid=node-panel][data-node="${target.id}"]`);
  assert.deepEqual(problems, []);
});

test('a link whose target is gone stays, shown as broken ("target gone")', async () => {
  const poem = graph.nodes.find((n) => /little poem/.test(n.label));
  const noted = await harmoniousNode();
  const note = await serve.call('Notes', 'Get', `rhizome:node/${noted.id}`);
  assert.ok(note.exists, 'the note of the earlier test is missing');
  await page.keyboard.press('g');
  await page.evaluate((id) => window.__rhizome.selectNode(id), poem.id);
  await page.waitForSelector(`[data-testid=links-panel][data-item="rhizome:node/${poem.id}"]`);
  await page.click('[data-testid=node-summary]');
  await page.keyboard.press('k');
  await page.waitForSelector('[data-testid=link-dialog] [data-testid=picker-input]');
  await pickByKeyboard('Compare with', note.uri);
  await page.waitForSelector('[data-testid=type-picker]');
  await page.keyboard.press('Enter');
  // (The note mentions this node too: that is a backlink; this is the outgoing one.)
  const row = page.locator(`[data-testid=links-panel][data-item="rhizome:node/${poem.id}"] [data-dir=out] [data-testid=link-row][data-other="${note.uri}"]`);
  await row.waitFor({ timeout: 30000 }).catch(async (e) => {
    await shot(page, 'debug-broken');
    throw new Error(`${e.message}\n${JSON.stringify(await serve.call('Links', 'Of', `rhizome:node/${poem.id}`))}\n${problems}`);
  });
  assert.equal(await row.getAttribute('data-broken'), 'false');

  // The note goes (saved blank): the link stays, struck through.
  await serve.call('Notes', 'Put', `rhizome:node/${noted.id}`, '');
  await page.waitForSelector(`[data-testid=links-panel][data-item="rhizome:node/${poem.id}"] [data-dir=out] [data-testid=link-row][data-other="${note.uri}"][data-broken=true]`);
  assert.match(await row.textContent(), /target gone/);
  await row.scrollIntoViewIfNeeded();
  await shot(page, 'links-12-broken-link');
  // Following it says why, and goes nowhere.
  await row.locator('[data-testid=item-chip]').click();
  await page.waitForSelector('[data-testid=toast]', { timeout: 5000 }).catch(() => {});
  assert.equal(await page.evaluate(() => window.__rhizome.state().selected), poem.id);
  assert.deepEqual(problems, []);
});

test('a session and a project have their links and note too: the session\'s Links button over its timeline links it to its project, which shows the backlink', async () => {
  const sessions = await serve.call('Library', 'Sessions', '');
  const s = sessions.find((x) => /Documentation Review/.test(x.title)) ?? sessions[0];
  const sessionUri = `rhizome:session/${s.id}`;
  await page.keyboard.press('g');
  await page.click(`[data-testid=session-item][data-session="${s.id}"]`);
  const button = page.locator(`[data-testid=timeline] [data-testid=item-links-button][data-item="${sessionUri}"]`);
  await button.click();
  await page.waitForSelector(`[data-testid=item-links-popover] [data-testid=links-panel][data-item="${sessionUri}"]`);
  await page.click(`[data-testid=item-links-popover] [data-testid=link-to]`);
  await page.waitForSelector('[data-testid=link-dialog] [data-testid=picker-input]');
  const projectUri = `rhizome:project/${encodeURIComponent(s.project).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase())}`;
  await pickByKeyboard(s.project.split('/').pop(), projectUri);
  await page.waitForSelector('[data-testid=type-picker]');
  await page.keyboard.type('part of');
  await page.waitForSelector('[data-testid=type-option][data-relation=PART_OF][aria-selected=true]');
  await page.keyboard.press('Enter');
  await page.waitForSelector('[data-testid=link-dialog]', { state: 'detached' });
  await page.waitForSelector(`[data-testid=item-links-popover] [data-dir=out][data-type=PART_OF] [data-testid=link-row][data-other="${projectUri}"]`);
  // The button's count follows the panel's (a reload of its own, after it).
  for (const end = Date.now() + 30_000; (await button.getAttribute('data-count')) !== '1'; await page.waitForTimeout(100)) {
    assert.ok(Date.now() < end, `the Links button counts ${await button.getAttribute('data-count')}, want 1`);
  }
  await shot(page, 'links-13-session-links');
  // Escape closes the popover; the project's own button shows the backlink.
  await page.keyboard.press('Escape');
  await page.waitForSelector('[data-testid=item-links-popover]', { state: 'detached' });
  await page.click(`[data-testid=project-item][data-project="${s.project}"]`);
  const pbutton = page.locator(`[data-testid=item-links-button][data-item="${projectUri}"]`);
  await pbutton.click();
  await page.waitForSelector(`[data-testid=item-links-popover] [data-dir=back] [data-testid=link-row][data-other="${sessionUri}"]`);
  await shot(page, 'links-14-project-links');
  await page.keyboard.press('Escape');
  assert.deepEqual(problems, []);
});

test('at 1024x700 in the dark theme the Links panel and the picker fit the window', async () => {
  const poem = graph.nodes.find((n) => /little poem/.test(n.label));
  const small = await openPage(serve.url, { width: 1024, height: 700, colorScheme: 'dark' });
  try {
    await waitNodeCount(small.page, graph.nodes.length);
    await small.page.evaluate((id) => window.__rhizome.selectNode(id), poem.id);
    const panel = small.page.locator(`[data-testid=links-panel][data-item="rhizome:node/${poem.id}"]`);
    await panel.locator('[data-testid=link-row]').first().waitFor();
    await panel.scrollIntoViewIfNeeded();
    await shot(small.page, 'links-13-panel-1024-dark');
    await small.page.click('[data-testid=node-summary]');
    await small.page.keyboard.press('k');
    await small.page.waitForSelector('[data-testid=link-dialog] [data-testid=picker-input]');
    await small.page.keyboard.type('poem');
    await small.page.waitForSelector('[data-testid=link-dialog] [data-testid=picker-results][data-query=poem] [data-testid=picker-hit]');
    const box = await small.page.locator('[data-testid=link-dialog]').boundingBox();
    assert.ok(box.x >= 0 && box.y >= 0 && box.x + box.width <= 1024 && box.y + box.height <= 700, `the dialog leaves the window: ${JSON.stringify(box)}`);
    await shot(small.page, 'links-14-picker-1024-dark');
    // A URI pasted finds its item; a URL is an item too.
    const other = graph.nodes.find((n) => n.id !== poem.id);
    await small.page.fill('[data-testid=picker-input]', `rhizome:node/${other.id}`);
    await small.page.waitForSelector(`[data-testid=picker-results][data-query="rhizome:node/${other.id}"] [data-testid=picker-hit][data-uri="rhizome:node/${other.id}"]`);
    await small.page.fill('[data-testid=picker-input]', 'https://example.org/moss');
    await small.page.waitForSelector('[data-testid=picker-results] [data-testid=picker-hit][data-kind=url][data-uri="https://example.org/moss"]');
    await small.page.keyboard.press('Escape');
    await small.page.waitForSelector('[data-testid=link-dialog]', { state: 'detached' });
    // The help lists K and [[.
    await small.page.keyboard.press('?');
    await small.page.waitForFunction(() => /Link the selected node or loom node/.test(document.body.textContent ?? ''));
    await shot(small.page, 'links-15-help-1024-dark');
    await small.page.keyboard.press('Escape');
    // Esc closed the dialog only: the node stays open.
    await small.page.waitForSelector(`[data-testid=node-panel][data-node="${poem.id}"]`);
    assert.deepEqual(small.problems, []);
  } finally {
    await small.browser.close();
  }
});

// The knowledge view: record a decision by hand, supersede it, see the
// chain; the project rules found offline in the samples, with the copy
// button; open questions on demand.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, shot, startServe, analysed } from './harness.mjs';

const PROJECT = '/Users/badlogic/workspaces/pi-mono'; // the samples' cwd

let serve, browser, page, problems;
before(async () => {
  serve = await startServe();
  await serve.call('Import', 'ImportSamples');
  await analysed(serve);
  ({ browser, page, problems } = await openPage(serve.url, { width: 1280, height: 800 }));
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: serve.origin });
});
after(async () => {
  await browser?.close();
  await serve?.stop();
});

test('record a decision by hand, supersede it, and see the chain', async () => {
  await page.keyboard.press('w');
  await page.waitForSelector('[data-testid=knowledge-view]');
  await page.click(`[data-testid=knowledge-project][data-project="${PROJECT}"]`);

  // Record: N opens the form with the decision kind and the project chosen.
  await page.keyboard.press('n');
  await page.waitForSelector('[data-testid=record-form]');
  assert.equal(await page.inputValue('[data-testid=record-project]'), PROJECT);
  // Saving without the required field says which one.
  await page.click('[data-testid=record-save]');
  assert.match(await page.textContent('[data-testid=record-error]'), /Decision/);
  await page.fill('[data-field=description]', 'Keep themes as JSON files in ~/.pi/agent/themes');
  await page.fill('[data-field=rationale]', 'users edit them by hand');
  await page.fill('[data-field=optionsConsidered]', 'TypeScript modules\nYAML');
  await page.click('[data-testid=record-save]');
  await page.waitForSelector('[data-testid=record-form]', { state: 'detached' });
  const first = page.locator('[data-testid=decision-chain]', { hasText: 'Keep themes as JSON files' });
  await first.waitFor();
  assert.equal(await first.getAttribute('data-length'), '1');
  await shot(page, 'e2e-knowledge-1-recorded');

  // Supersede: the form starts from the old text; the new decision replaces it.
  await first.locator('[data-testid=supersede-button]').click();
  await page.waitForSelector('[data-testid=supersedes-note]');
  assert.equal(await page.inputValue('[data-field=description]'), 'Keep themes as JSON files in ~/.pi/agent/themes');
  await page.fill('[data-field=description]', 'Load themes from JSON and validate them against a schema at start-up');
  await page.fill('[data-testid=record-reason]', 'an invalid theme must never explode');
  await shot(page, 'e2e-knowledge-2-supersede-form');
  await page.click('[data-testid=record-save]');
  await page.waitForSelector('[data-testid=record-form]', { state: 'detached' });

  const chain = page.locator('[data-testid=decision-chain]', { hasText: 'validate them against a schema' });
  await chain.waitFor();
  assert.equal(await chain.getAttribute('data-length'), '2');
  assert.equal((await chain.locator('[data-testid=decision-title]').textContent()).trim(), 'Load themes from JSON and validate them against a schema at start-up');
  const older = chain.locator('[data-testid=chain-item]');
  assert.equal(await older.count(), 1);
  assert.match(await older.first().textContent(), /Keep themes as JSON files/);
  assert.match(await older.first().locator('[data-testid=knowledge-status]').textContent(), /superseded/);
  assert.equal((await older.first().locator('[data-testid=replaced-because]').textContent()).trim(), 'Replaced because an invalid theme must never explode');
  // The old decision is no longer a chain of its own.
  assert.equal(await page.locator('[data-testid=decision-chain]', { hasText: 'Keep themes as JSON files' }).count(), 1);

  // What the page shows is what the library holds.
  const chains = await serve.call('Knowledge', 'Decisions', PROJECT);
  const c = chains.find((x) => x.items.length === 2);
  assert.ok(c, JSON.stringify(chains));
  assert.equal(await chain.getAttribute('data-head'), c.head);
  assert.deepEqual(c.items.map((i) => i.status), ['active', 'superseded']);
  assert.equal(c.items[0].createdBy, 'user');
  await shot(page, 'e2e-knowledge-3-chain');
  // Dark theme, narrow window.
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.setViewportSize({ width: 1024, height: 700 });
  await shot(page, 'e2e-knowledge-4-chain-dark-1024');
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 800 });
});

test('project rules from the samples, copied as Markdown; open questions on demand', async () => {
  await page.click('[data-testid=knowledge-tab][data-tab=rules]');
  await page.waitForSelector('[data-testid=rules-panel]');
  const rules = await serve.call('Knowledge', 'Rules', PROJECT);
  assert.ok(rules.groups.length > 0, 'the samples gave no rules');
  const shown = await page.locator('[data-testid=rule]').count();
  assert.equal(shown, rules.groups.reduce((n, g) => n + g.rules.length, 0));
  assert.match(await page.textContent('[data-testid=rules-panel]'), /Use rgb values in the themes, no rgb indices\./);
  await page.click('[data-testid=copy-rules]');
  await page.waitForFunction(() => document.querySelector('[data-testid=copy-rules]')?.textContent?.includes('Copied'));
  const clip = await page.evaluate(() => navigator.clipboard.readText());
  assert.equal(clip, rules.markdown);
  assert.ok(clip.startsWith('## Project Rules'));
  await shot(page, 'e2e-knowledge-5-rules');

  // A question recorded by hand is listed only when asked for.
  await serve.call('Knowledge', 'Record', {
    kind: 'question', project: PROJECT, fields: { question: 'Should themes support light and dark variants?' },
    confidence: 0, topics: [], segmentNodeId: '', entryIds: [], supersedes: '', reason: '',
  });
  await page.click('[data-testid=knowledge-tab][data-tab=questions]');
  await page.waitForSelector('[data-testid=open-question]');
  assert.match(await page.textContent('[data-testid=questions-panel]'), /light and dark variants/);
  assert.doesNotMatch(clip, /light and dark/);
  await shot(page, 'e2e-knowledge-6-questions');

  // Answering it (a new version) takes it out of the open questions.
  await page.click('[data-testid=answer-button]');
  await page.waitForSelector('[data-testid=record-form]');
  await page.fill('[data-field=answer]', 'Yes: a dark and a light theme ship built in');
  await page.click('[data-testid=record-save]');
  await page.waitForSelector('[data-testid=open-question]', { state: 'detached' });
  assert.deepEqual(await serve.call('Knowledge', 'OpenQuestions', PROJECT), []);
  const q = (await serve.call('Knowledge', 'List', { kinds: ['question'], query: 'light and dark', limit: 5 }))[0];
  assert.equal(q.version, 2);
  assert.equal(q.fields.answer, 'Yes: a dark and a light theme ship built in');
  assert.deepEqual(problems, []);
});

test('record a fact from the node panel, prefilled from the selected text', async () => {
  await page.keyboard.press('g');
  const graph = await serve.call('Graph', 'Graph', { project: PROJECT });
  const node = graph.nodes[0];
  await page.evaluate((id) => window.__rhizome.selectNode(id), node.id);
  await page.waitForSelector(`[data-testid=node-panel][data-node="${node.id}"] [data-testid=node-summary]`);
  // Select the node's summary, as a person would with the mouse.
  const summary = await page.evaluate(() => {
    const el = document.querySelector('[data-testid=node-summary]');
    const range = document.createRange();
    range.selectNodeContents(el);
    const sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
    return sel.toString();
  });
  assert.ok(summary.trim().length > 0);
  await shot(page, 'e2e-knowledge-7a-node-panel');
  await page.click('[data-testid=record-from-node]');
  await page.waitForSelector('[data-testid=knowledge-view] [data-testid=record-form]');
  assert.match(await page.textContent('[data-testid=record-source]'), /From the segment/);
  assert.equal(await page.inputValue('[data-field=description]'), summary.trim().replace(/\s+/g, ' '));
  // As a project fact: the text carries over to the fact.
  await page.selectOption('[data-testid=record-kind]', 'projectFact');
  await page.fill('[data-field=fact]', 'Always run npm run check before committing');
  await page.selectOption('[data-field=category]', 'workflow');
  await shot(page, 'e2e-knowledge-7-from-node');
  await page.click('[data-testid=record-save]');
  await page.waitForSelector('[data-testid=rules-panel]');
  await page.waitForFunction(() => document.querySelector('[data-testid=rules-panel]')?.textContent?.includes('Always run npm run check'));
  const facts = await serve.call('Knowledge', 'List', { kinds: ['projectFact'], query: 'npm run check', limit: 5 });
  assert.equal(facts.length, 1);
  assert.equal(facts[0].segmentNodeId, node.id);
  assert.equal(facts[0].sessionId, node.sessionId);
  assert.equal(facts[0].createdBy, 'user');
  assert.deepEqual(problems, []);
});

test('knowledge text stays inert: markup in a decision or rule is shown as text', async () => {
  const evil = '<img src=x onerror="window.__xss=1"> Use <b>bold</b> rules';
  for (const [kind, fields] of [['decision', { description: evil }], ['projectFact', { fact: evil, category: 'convention' }]]) {
    await serve.call('Knowledge', 'Record', {
      kind, project: PROJECT, fields, confidence: 0, topics: [], segmentNodeId: '', entryIds: [], supersedes: '', reason: '',
    });
  }
  await page.keyboard.press('Escape');
  await page.keyboard.press('w');
  await page.click('[data-testid=knowledge-tab][data-tab=decisions]');
  await page.waitForFunction((t) => [...document.querySelectorAll('[data-testid=decision-title]')].some((e) => e.textContent.includes(t)), evil);
  await page.click('[data-testid=knowledge-tab][data-tab=rules]');
  await page.waitForFunction((t) => [...document.querySelectorAll('[data-testid=rule]')].some((e) => e.textContent.includes(t)), evil);
  assert.equal(await page.evaluate(() => window.__xss), undefined);

  // Re-running the offline rules finds the samples' items again and keeps what was recorded by
  // hand (the fact recorded from the node panel belongs to a session too: counted with them).
  const before = (await serve.call('Knowledge', 'List', { limit: 1000 })).length;
  await page.click('[data-testid=reextract]');
  await page.waitForSelector('[data-testid=reextract-result]');
  const read = /^3 sessions read again: (\d+) → (\d+) items$/.exec((await page.textContent('[data-testid=reextract-result]')).trim());
  assert.ok(read && read[1] === read[2] && Number(read[1]) >= 50, `re-extraction: ${read?.[0]}`);
  assert.equal((await serve.call('Knowledge', 'List', { limit: 1000 })).length, before);
  await shot(page, 'e2e-knowledge-8-inert-reextract');
  assert.equal(await page.locator('[data-testid=knowledge-view] img').count(), 0);
  assert.deepEqual(problems, []);
});

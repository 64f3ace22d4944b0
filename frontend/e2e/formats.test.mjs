// Claude Code and Codex sessions in the window (issue 11): one file of each
// format (pi, Claude Code, Codex, the real logs the real programs wrote)
// dropped together is imported and drawn; the node panel shows a Codex
// apply_patch and a Claude Code Edit as diffs, other tool calls, their
// results and thinking as blocks, and untrusted text inert. The watched
// folders are listed in Settings with a switch each; a session written into
// one shows up live, and stays, marked, when its file is deleted.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { REPO, SAMPLE, dropFiles, openPage, shot, startServe, startWatcher, waitImportDone, analysed } from './harness.mjs';

const CLAUDE = join(
  REPO,
  'backend/claudecode/testdata/claude-home/projects/-tmp-rhizome-claudecode-fixtures-work-acme-api/5e55a1d0-0c1a-4b1e-9c0d-7a3f2b6e8d41.jsonl',
);
// Its sub-agent's transcript, spawned by the review call.
const CLAUDE_AGENT = join(
  REPO,
  'backend/claudecode/testdata/claude-home/projects/-tmp-rhizome-claudecode-fixtures-work-acme-api/5e55a1d0-0c1a-4b1e-9c0d-7a3f2b6e8d41/subagents/agent-a765be5fbac609558.jsonl',
);
const CODEX = join(
  REPO,
  'backend/codex/testdata/codex-home/sessions/2026/11/24/rollout-2026-11-24T11-04-43-01a20d3a-bd07-7491-8132-c49792fbf869.jsonl',
);
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** text with every UUID replaced by a new one, the same throughout. */
function renew(text) {
  const m = new Map();
  return text.replace(UUID, (u) => {
    if (!m.has(u)) m.set(u, u.slice(0, 24) + randomUUID().slice(24));
    return m.get(u);
  });
}

let serve, browser, page, problems, home;
before(async () => {
  // The watched folders' defaults come from these: a home of the test's own.
  home = mkdtempSync(join(tmpdir(), 'rhizome-e2e-home-'));
  mkdirSync(join(home, 'codex/sessions'), { recursive: true });
  serve = await startServe({ env: { HOME: home, CLAUDE_CONFIG_DIR: join(home, 'claude'), CODEX_HOME: join(home, 'codex') } });
  ({ browser, page, problems } = await openPage(serve.url, { width: 1280, height: 860 }));
});
after(async () => {
  await browser?.close();
  await serve?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
});

/** The first node of session sessionId holding an entry that has a block matching pick, with that entry. */
async function nodeWith(sessionId, pick) {
  const g = await serve.call('Graph', 'Graph', { sessionId });
  for (const n of g.nodes) {
    for (const e of await serve.entries(n.id)) {
      if ((e.blocks ?? []).some(pick)) return { node: n.id, entry: e };
    }
  }
  return null;
}

test('one file of each format dropped: imported, drawn, their blocks rendered', async () => {
  await page.waitForSelector('[data-testid=empty-state]');
  // A hand-made copy of the Claude Code file whose edit carries markup: shown as text, never run.
  const evil = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';
  const claudeEvil = renew(readFileSync(CLAUDE, 'utf8')).replace(
    '"new_string":"func main() {',
    `"new_string":${JSON.stringify(evil).slice(0, -1)}func main() {`,
  );
  assert.ok(claudeEvil.includes('onerror'), 'the markup was not put into the copy');
  const evilID = /"sessionId":"([0-9a-f-]{36})"/.exec(claudeEvil)[1];
  await dropFiles(page, [
    { name: basename(SAMPLE), bytes: readFileSync(SAMPLE) },
    { name: basename(CLAUDE), bytes: readFileSync(CLAUDE) },
    { name: basename(CLAUDE_AGENT), bytes: readFileSync(CLAUDE_AGENT) },
    { name: basename(CODEX), bytes: readFileSync(CODEX) },
    { name: `${evilID}.jsonl`, bytes: Buffer.from(claudeEvil) },
  ]);
  assert.deepEqual(await waitImportDone(page), ['imported', 'imported', 'imported', 'imported', 'imported']);
  await analysed(serve);

  const sessions = await serve.call('Library', 'Sessions', '');
  const byFormat = {};
  for (const s of sessions) (byFormat[s.format] ??= []).push(s);
  assert.equal(byFormat.pi?.length, 1);
  assert.equal(byFormat['claude-code']?.length, 3);
  assert.equal(byFormat.codex?.length, 1);
  await page.keyboard.press('Escape'); // the import panel
  await page.waitForSelector('[data-testid=empty-state]', { state: 'detached' });
  // The top bar says what the library holds, and a narrower bar drops whole parts, never a figure's end:
  // the tokens first, then the cost.
  const stats = page.locator('[data-testid=library-stats]');
  await page.waitForFunction((n) => document.querySelector('[data-testid=library-stats]')?.textContent?.includes(`${n} sessions`), sessions.length);
  const shown = () =>
    stats.evaluate((el) => {
      const box = el.getBoundingClientRect();
      return [...el.querySelectorAll('[data-part]')].filter((p) => {
        const r = p.getBoundingClientRect();
        return r.top < box.bottom && r.right <= box.right + 0.5;
      }).map((p) => p.textContent.replace(/\u00a0/g, ' ').trim());
    });
  // From a wide window down to a narrow one: the parts shown are always the first ones, whole, and the
  // last ones go first (in a narrow enough window, all of them).
  const seen = new Set();
  for (let width = 1440; width >= 960; width -= 20) {
    await page.setViewportSize({ width, height: 900 });
    const parts = await shown();
    // The Codex model has no price: the library's cost is what was priced, with a "+".
    const want = [/^\d+ sessions$/, /^· \$\d+\.\d\d\+$/, /^· [\d.]+[kM]? tok$/];
    parts.forEach((p, i) => assert.match(p, want[i], `at ${width} px: ${parts.join(' | ')}`));
    seen.add(parts.length);
  }
  assert.deepEqual([...seen].sort(), [0, 1, 2, 3], 'the sweep did not see every step');
  assert.match(await stats.getAttribute('title'), /^\d+ sessions · [\d,]+ nodes · [\d.]+[kM]? tokens · \$/);
  await page.setViewportSize({ width: 1440, height: 900 });
  assert.equal(await page.locator('[data-testid=session-item]').count(), sessions.length);
  // Dropped files are not being written (no watcher follows them): none is live; the formats say which they are.
  assert.equal(await page.locator('[data-testid=session-item] [data-testid=session-live]').count(), 0);
  const codex = byFormat.codex[0];
  const claude = byFormat['claude-code'].find((s) => s.id !== evilID && !s.agentId);
  assert.equal((await page.textContent(`[data-testid=session-item][data-session="${codex.id}"] [data-testid=session-format]`)).trim(), 'Codex');
  assert.equal((await page.textContent(`[data-testid=session-item][data-session="${claude.id}"] [data-testid=session-format]`)).trim(), 'Claude Code');
  // The Codex model has no price in Rhizome's table: it reads unpriced, not $0.00; Claude Code's is priced.
  assert.ok(codex.costUnknown, 'the Codex session is not marked as of an unpriced model');
  assert.equal((await page.textContent(`[data-testid=session-item][data-session="${codex.id}"] [data-testid=session-cost]`)).trim(), 'unpriced');
  assert.match((await page.textContent(`[data-testid=session-item][data-session="${claude.id}"] [data-testid=session-cost]`)).trim(), /^(\$\d+\.\d\d|<\$0\.01)$/);
  // Its project sums what was priced and says the rest is not: "$x+" or unpriced, never a bare $0.00.
  const codexProject = page.locator(`[data-testid=project-item][data-project="${codex.project}"] [data-testid=project-cost]`);
  assert.match((await codexProject.textContent()).trim(), /^(unpriced|(\$\d+\.\d\d|<\$0\.01)\+)$/);
  assert.match(await codexProject.getAttribute('title'), /no price/);
  // The sub-agent's transcript is marked as one (not as a fork), its parent named by title.
  const agent = byFormat['claude-code'].find((s) => s.agentId);
  const lineage = page.locator(`[data-testid=session-item][data-session="${agent?.id}"] [data-testid=session-lineage]`);
  assert.equal((await lineage.textContent()).trim(), 'sub-agent');
  assert.equal(await lineage.getAttribute('title'), `A sub-agent (${agent.agentId}) spawned by “${claude.title}”`);
  assert.equal(await page.locator(`[data-testid=session-item][data-session="${claude.id}"] [data-testid=session-lineage]`).count(), 0);
  // ... and listed right under the session that spawned it, indented.
  const listed = await page.$$eval('[data-testid=session-item]', (els) => els.map((e) => e.getAttribute('data-session')));
  assert.equal(listed[listed.indexOf(claude.id) + 1], agent.id, `sidebar order ${listed}`);
  assert.ok(await page.locator(`li.sub:has([data-testid=session-item][data-session="${agent.id}"])`).count(), 'the sub-agent is not indented');

  // Codex: apply_patch as a diff of main.py.
  const patch = await nodeWith(codex.id, (b) => b.type === 'toolCall' && b.name === 'apply_patch');
  assert.ok(patch, 'no node of the Codex session holds its apply_patch call');
  await page.evaluate((id) => window.__rhizome.selectNode(id), patch.node);
  const codexPatch = page.locator(`[data-testid=message][data-entry="${patch.entry.id}"] [data-testid=tool-patch][data-tool=apply_patch]`);
  await codexPatch.waitFor();
  await codexPatch.scrollIntoViewIfNeeded();
  assert.equal((await codexPatch.locator('.file-path').textContent()).trim(), 'main.py');
  assert.equal(await codexPatch.locator('del').textContent(), 'print(total([1, 2, 3]))\n');
  assert.equal(await codexPatch.locator('ins').textContent(), 'print("total:", total([1, 2, 3]))\n');
  assert.equal((await page.textContent('[data-testid=node-panel] [data-testid=session-format]')).trim(), 'Codex');
  // Its model has no price: the node's cost reads unpriced, not $0.00.
  assert.equal((await page.textContent('[data-testid=node-panel] [data-testid=node-cost]')).trim(), 'unpriced');
  await shot(page, 'formats-1-codex-patch');
  // Dark theme, and the smallest window the app supports.
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.setViewportSize({ width: 1024, height: 700 });
  await codexPatch.scrollIntoViewIfNeeded();
  await shot(page, 'formats-1b-codex-patch-dark-1024');
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 860 });
  // Its result, and an exec_command call, are blocks of their own.
  const codexEntries = await serve.entries(patch.node);
  assert.ok(codexEntries.some((e) => e.role === 'toolResult'), 'the Codex node has no tool result');
  assert.ok((await page.locator('[data-testid=node-panel] [data-testid=message][data-role=toolResult]').count()) > 0);
  // A collapsed call says what it runs (exec_command's cmd), not the first line of its JSON.
  const exec = codexEntries.flatMap((e) => e.blocks ?? []).find((b) => b.type === 'toolCall' && b.name === 'exec_command');
  assert.ok(exec, 'the Codex node has no exec_command call');
  const peeks = await page.locator('[data-testid=node-panel] [data-testid=call-peek]').allTextContents();
  assert.ok(peeks.includes(JSON.parse(exec.arguments).cmd), `the calls read ${JSON.stringify(peeks)}`);

  // Codex's long injected instructions (a developer message: skills, permissions) show one line until opened.
  let injected = null;
  for (const n of (await serve.call('Graph', 'Graph', { sessionId: codex.id })).nodes) {
    const e = (await serve.entries(n.id)).find((x) => x.role !== 'user' && x.role !== 'assistant' && x.type === 'message' && (x.blocks ?? []).some((b) => b.type === 'text' && b.text.split('\n').length > 6));
    if (e) {
      injected = { node: n.id, entry: e };
      break;
    }
  }
  assert.ok(injected, 'no long injected message in the Codex session');
  await page.evaluate((id) => window.__rhizome.selectNode(id), injected.node);
  const inj = page.locator(`[data-testid=message][data-entry="${injected.entry.id}"]`);
  await inj.locator('[data-testid=meta-peek]').first().waitFor();
  const long = injected.entry.blocks.filter((b) => b.type === 'text' && b.text.split('\n').length > 6).map((b) => b.text);
  assert.equal(await inj.locator('[data-testid=meta-peek]').count(), long.length);
  const shownWhole = async () => (await inj.locator('pre').allTextContents()).filter((t) => long.includes(t)).length;
  assert.equal(await shownWhole(), 0, 'an injected text is shown whole before it is opened');
  await inj.locator('summary').first().click();
  // Opened: one of the long texts is shown whole (waited for as such: the message may hold other pre blocks).
  await page.waitForFunction(
    ([el, texts]) => [...el.querySelectorAll('pre')].some((p) => texts.includes(p.textContent)),
    [await inj.elementHandle(), long],
  );
  assert.equal(await shownWhole(), 1);

  // Claude Code: Edit as a diff; a Bash call and its result as blocks; thinking.
  const edit = await nodeWith(claude.id, (b) => b.type === 'toolCall' && b.name === 'Edit');
  assert.ok(edit, 'no node of the Claude Code session holds its Edit call');
  await page.evaluate((id) => window.__rhizome.selectNode(id), edit.node);
  const claudeEdit = page.locator(`[data-testid=message][data-entry="${edit.entry.id}"] [data-testid=tool-patch][data-tool=Edit]`);
  await claudeEdit.waitFor();
  const args = JSON.parse(edit.entry.blocks.find((b) => b.name === 'Edit').arguments);
  assert.equal((await claudeEdit.locator('.file-path').textContent()).trim(), args.file_path);
  const inserted = (await claudeEdit.locator('ins').allTextContents()).join('');
  assert.ok(inserted.includes('/health'), `the Edit's insertion is not shown: ${inserted}`);
  const call = await nodeWith(claude.id, (b) => b.type === 'toolCall' && b.name !== 'Edit');
  if (call?.node === edit.node) {
    const msg = page.locator(`[data-testid=message][data-entry="${call.entry.id}"]`);
    await msg.locator('summary').first().click();
    await msg.locator('.body').first().waitFor();
  }
  await claudeEdit.scrollIntoViewIfNeeded();
  await shot(page, 'formats-2-claude-edit');
  const thinking = await nodeWith(claude.id, (b) => b.type === 'thinking');
  if (thinking) {
    await page.evaluate((id) => window.__rhizome.selectNode(id), thinking.node);
    await page.locator(`[data-testid=message][data-entry="${thinking.entry.id}"] .tag:text("thinking")`).first().waitFor();
  }

  // Read of logo.png returned an image and no text: its size says so.
  const picture = await nodeWith(claude.id, (b) => b.type === 'image');
  assert.ok(picture, 'no node of the Claude Code session holds the image Read returned');
  await page.evaluate((id) => window.__rhizome.selectNode(id), picture.node);
  const size = page.locator(`[data-testid=message][data-entry="${picture.entry.id}"] [data-testid=result-size]`);
  await size.waitFor();
  assert.equal((await size.textContent()).trim(), '1 image');

  // The /compact the person typed reads as the command, not as its markup.
  const typed = await nodeWith(claude.id, (b) => b.type === 'text' && b.text.startsWith('<command-name>'));
  assert.ok(typed, 'no node of the Claude Code session holds the /compact command');
  await page.evaluate((id) => window.__rhizome.selectNode(id), typed.node);
  const cmd = page.locator(`[data-testid=message][data-entry="${typed.entry.id}"] [data-testid=command]`);
  await cmd.waitFor();
  assert.equal((await cmd.textContent()).trim(), '/compact');
  // Its bookkeeping lines (queue operations, last prompt, mode…) are a collapsed row per run, each line one click away.
  const quiet = page.locator('[data-testid=node-panel] [data-testid=quiet-lines]').first();
  await quiet.waitFor();
  const said = (await quiet.locator('summary').textContent()).trim();
  const n = Number(/^(\d+) lines: /.exec(said)?.[1]);
  assert.ok(n >= 2, `a quiet row reads ${JSON.stringify(said)}`);
  assert.equal(await quiet.locator('[data-testid=message]').count(), n);
  assert.equal(await quiet.locator('[data-testid=message]').first().isVisible(), false);
  await quiet.locator('summary').click();
  await quiet.locator('[data-testid=message]').first().waitFor({ state: 'visible' });

  // The copy with markup: its text is shown as text, nothing ran.
  const evilEdit = await nodeWith(evilID, (b) => b.type === 'toolCall' && b.name === 'Edit');
  await page.evaluate((id) => window.__rhizome.selectNode(id), evilEdit.node);
  const evilPatch = page.locator(`[data-testid=message][data-entry="${evilEdit.entry.id}"] [data-testid=tool-patch]`);
  await evilPatch.waitFor();
  assert.ok((await evilPatch.locator('ins').allTextContents()).join('').includes('<script>window.__pwned=2</script>'));
  assert.equal(await evilPatch.locator('img, script').count(), 0);
  await page.waitForTimeout(300);
  assert.equal(await page.evaluate(() => window.__pwned), undefined);

  // pi: still rendered as before.
  const pi = byFormat.pi[0];
  const piNode = (await serve.call('Graph', 'Graph', { sessionId: pi.id })).nodes[0].id;
  await page.evaluate((id) => window.__rhizome.selectNode(id), piNode);
  await page.waitForSelector(`[data-testid=node-panel][data-node="${piNode}"] [data-testid=message]`);
  assert.deepEqual(problems.filter((p) => !/favicon/.test(p)), []);
});

/** Waits (10 s at most) until Go says the watched folder dir is enabled or not. */
async function goSays(dir, enabled) {
  for (let i = 0; ; i++) {
    if ((await serve.call('Watch', 'Folders')).find((f) => f.path === dir).enabled === enabled) return;
    assert.ok(i < 100, `Go never said ${dir} is ${enabled ? 'on' : 'off'}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('watched folders: a switch each; a session written shows up live and stays when deleted', async () => {
  await page.keyboard.press('Escape');
  await page.click('[data-testid=settings-button]');
  const rows = page.locator('[data-testid=watched-folder]');
  await rows.first().waitFor();
  const folders = await serve.call('Watch', 'Folders');
  assert.equal(await rows.count(), folders.length);
  const codexDir = join(home, 'codex/sessions');
  const row = page.locator(`[data-testid=watched-folder][data-path="${codexDir}"]`);
  assert.equal(await row.locator('[data-testid=watched-folder-switch]').isChecked(), true);
  // Switched off and on again, as Go keeps it.
  await row.locator('[data-testid=watched-folder-switch]').click();
  await page.waitForFunction((p) => document.querySelector(`[data-testid=watched-folder][data-path="${p}"] input`)?.checked === false, codexDir);
  // The switch turns at once; Go has it when its call returns.
  await goSays(codexDir, false);
  await row.locator('[data-testid=watched-folder-switch]').click();
  await page.waitForFunction((p) => document.querySelector(`[data-testid=watched-folder][data-path="${p}"] input`)?.checked === true, codexDir);
  await goSays(codexDir, true);
  await shot(page, 'formats-3-watched-folders');
  await page.keyboard.press('Escape');

  // The watcher on; a Codex rollout written into its folder, line by line.
  await startWatcher(serve);
  const text = renew(readFileSync(CODEX, 'utf8'));
  const id = /"id":"([0-9a-f-]{36})"/.exec(text)[1];
  const file = join(codexDir, '2026/11/24', `rollout-2026-11-24T12-00-00-${id}.jsonl`);
  mkdirSync(join(codexDir, '2026/11/24'), { recursive: true });
  const lines = text.split('\n');
  const half = Math.floor(lines.length / 2);
  writeFileSync(file, lines.slice(0, half).join('\n') + '\n');
  const item = page.locator(`[data-testid=session-item][data-session="${id}"]`);
  await item.waitFor({ timeout: 30_000 });
  await item.locator('[data-testid=session-live]').waitFor();
  await page.locator(`[data-testid=lane-label][data-session="${id}"] [data-testid=lane-live]`).waitFor();
  const first = (await serve.call('Library', 'Sessions', '')).find((s) => s.id === id);
  appendFileSync(file, lines.slice(half).join('\n'));
  await page.waitForFunction(
    ([sid, n]) => {
      const el = document.querySelector(`[data-testid=session-item][data-session="${sid}"]`);
      return el && Number(/(\d+) entries/.exec(el.textContent)?.[1]) > n;
    },
    [id, first.entries],
    { timeout: 10_000 },
  );
  await item.scrollIntoViewIfNeeded();
  await shot(page, 'formats-4-live');

  // Deleted: kept, and said so.
  rmSync(file);
  await item.locator('[data-testid=session-source-deleted]').waitFor({ timeout: 10_000 });
  await item.locator('[data-testid=session-live]').waitFor({ state: 'detached' });
  const kept = (await serve.call('Library', 'Sessions', '')).find((s) => s.id === id);
  assert.equal(kept.sourceDeleted, true);
  assert.ok(kept.entries > first.entries);
  await shot(page, 'formats-5-source-deleted');
  await serve.call('Watch', 'Stop');
});

test('a Claude Code tool output saved beside its session: kept whole, shown under its result, after the files are gone', async () => {
  // The fixture session and its folder (tool-results/), with new ids, written into the watched Claude Code folder.
  const text = renew(readFileSync(CLAUDE, 'utf8'));
  const id = /"sessionId":"([0-9a-f-]{36})"/.exec(text)[1];
  const project = join(home, 'claude/projects/-tmp-rhizome-claudecode-fixtures-work-acme-api');
  const name = 'bz85kpk1b.txt';
  const saved = readFileSync(join(CLAUDE.replace(/\.jsonl$/, ''), 'tool-results', name), 'utf8');
  mkdirSync(join(project, id, 'tool-results'), { recursive: true });
  writeFileSync(join(project, id, 'tool-results', name), saved);
  await startWatcher(serve);
  writeFileSync(join(project, `${id}.jsonl`), text);
  const item = page.locator(`[data-testid=session-item][data-session="${id}"]`);
  await item.waitFor({ timeout: 30_000 });

  let found = null;
  for (const n of (await serve.call('Graph', 'Graph', { sessionId: id })).nodes) {
    const e = (await serve.entries(n.id)).find((x) => (x.toolOutputs ?? []).length > 0);
    if (e) {
      found = { node: n.id, entry: e };
      break;
    }
  }
  assert.ok(found, 'no entry of the watched session lists its tool output');
  assert.deepEqual(found.entry.toolOutputs, [{ name, bytes: Buffer.byteLength(saved), kept: true }]);
  await page.evaluate((nid) => window.__rhizome.selectNode(nid), found.node);
  const msg = page.locator(`[data-testid=message][data-entry="${found.entry.id}"]`);
  const size = msg.locator('[data-testid=tool-output-size]');
  await size.waitFor();
  assert.equal((await size.textContent()).trim(), '6.2 KB, kept in the library');
  // The line's own result is the preview (its first 2 KB); opened, the whole output reads to its last line.
  await size.click();
  const whole = msg.locator(`[data-testid=tool-output][data-name="${name}"] pre`);
  await whole.waitFor();
  assert.ok((await whole.textContent()).endsWith('1499\n1500\n'), 'the whole output is not shown');
  await whole.scrollIntoViewIfNeeded();
  await shot(page, 'formats-6-tool-output');

  // Claude Code deletes the session and its folder: the library keeps both.
  rmSync(project, { recursive: true, force: true });
  await item.locator('[data-testid=session-source-deleted]').waitFor({ timeout: 10_000 });
  const kept = await serve.call('Library', 'ToolOutput', `rhizome:entry/${id}/${found.entry.id}`, name);
  assert.equal(kept.text, saved);
  await serve.call('Watch', 'Stop');
  assert.deepEqual(problems.filter((p) => !/favicon/.test(p)), []);
});

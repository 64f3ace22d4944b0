// Hundreds of sessions in pi's watched folder: the watcher's first pass says
// so on the empty library, then the sidebar draws them a page at a time (a
// library of thousands made a sidebar of a hundred thousand elements, and
// the window took fifteen seconds to show it); the rest come as the list is
// scrolled, the filter finds any of them, and a session selected elsewhere
// is in the list.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPage, shot, startServe } from './harness.mjs';

const N = 400;
const PAGE = 150; // rows.ts PAGE_ROWS

/** A small pi session (version 1: no entry ids), number i, in one of four projects. */
function session(i) {
  const at = new Date(Date.UTC(2026, 0, 1) + i * 60_000);
  const id = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
  const lines = [
    { type: 'session', id, timestamp: at.toISOString(), cwd: `/work/project-${i % 4}` },
    { type: 'message', timestamp: at.toISOString(), message: { role: 'user', content: [{ type: 'text', text: `Task number ${i}: rename the field q${i}.` }] } },
    {
      type: 'message',
      timestamp: new Date(at.getTime() + 5000).toISOString(),
      message: { role: 'assistant', content: [{ type: 'text', text: `Renamed q${i}.` }], provider: 'anthropic', model: 'claude-opus-4-5', stopReason: 'stop' },
    },
  ];
  return { id, name: `2026-01-01T00-00-00-000Z_${id}.jsonl`, bytes: Buffer.from(lines.map((l) => JSON.stringify(l)).join('\n') + '\n') };
}

let serve, browser, page, problems, home;
before(async () => {
  // The sessions are in pi's watched folder, in a home of the test's own.
  home = mkdtempSync(join(tmpdir(), 'rhizome-e2e-home-'));
  mkdirSync(join(home, 'pi/sessions/--work--'), { recursive: true });
  for (let i = 0; i < N; i++) {
    const s = session(i);
    writeFileSync(join(home, 'pi/sessions/--work--', s.name), s.bytes);
  }
  serve = await startServe({ env: { HOME: home, PI_CODING_AGENT_DIR: join(home, 'pi') } });
  ({ browser, page, problems } = await openPage(serve.url));
});
after(async () => {
  await browser?.close();
  await serve?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
});

test('hundreds of sessions: the watcher brings them in, a page at a time, the rest on scrolling, any found by the filter', async () => {
  const rows = () => page.locator('[data-testid=session-item]').count();
  // The watcher's first pass over the folder says so on the empty library, then fills it.
  await page.waitForSelector('[data-testid=empty-state]');
  await serve.call('Watch', 'Start');
  await page.waitForSelector('[data-testid=empty-first-pass]');
  await shot(page, 'many-sessions-0-first-pass');
  await page.waitForFunction((n) => document.querySelector('[data-testid=sessions-more]')?.textContent?.includes(`of ${n - 150}`), N, { timeout: 60_000 });
  await page.waitForSelector('[data-testid=empty-first-pass]', { state: 'detached' });
  assert.equal(await rows(), PAGE);
  assert.equal((await page.textContent('[data-testid=sessions-more]')).trim(), `Show ${PAGE} more of ${N - PAGE}`);

  // Scrolling to the end draws the next page.
  await page.evaluate(() => {
    const ul = document.querySelector('[data-testid=sessions-more]').closest('ul');
    ul.scrollTop = ul.scrollHeight;
  });
  await page.waitForFunction((want) => document.querySelectorAll('[data-testid=session-item]').length === want, 2 * PAGE, { polling: 100 });
  await shot(page, 'many-sessions-1-scrolled');
  // The button draws the rest. Clicked in the page, from the list's top: on a
  // busy machine the end of the list, still near the view, could draw the
  // next page between a pointer click's scrolling and its press, taking the
  // button away under it. When it has done so already there is no button.
  const clicked = await page.evaluate(() => {
    const b = document.querySelector('[data-testid=sessions-more]');
    b?.closest('ul')?.scrollTo({ top: 0 });
    b?.click();
    return b !== null;
  });
  if (!clicked) console.log('# the list had drawn every row on scrolling before the button could be clicked');
  await page.waitForFunction((want) => document.querySelectorAll('[data-testid=session-item]').length === want, N, { polling: 100 });
  assert.equal(await page.locator('[data-testid=sessions-more]').count(), 0);

  // A new filter starts at the first page again, and finds a session the first page did not draw.
  const sessions = await serve.call('Library', 'Sessions', '');
  const last = sessions[sessions.length - 1];
  await page.fill('[data-testid=list-filter]', 'Task number');
  await page.waitForFunction((want) => document.querySelectorAll('[data-testid=session-item]').length === want, PAGE, { polling: 100 });
  // ... from the list's top: the end of the list scrolled to before is not in view, drawing pages unasked.
  await page.waitForTimeout(800);
  assert.equal(await rows(), PAGE);
  assert.equal(await page.evaluate(() => document.querySelector('[data-testid=sessions-more]').closest('ul').scrollTop), 0);
  await page.fill('[data-testid=list-filter]', last.title);
  await page.waitForSelector(`[data-testid=session-item][data-session="${last.id}"]`);
  await page.fill('[data-testid=list-filter]', '');
  await page.waitForFunction((want) => document.querySelectorAll('[data-testid=session-item]').length === want, PAGE, { polling: 100 });

  // A session selected elsewhere (the graph, a link) is drawn in the list, selected.
  await page.evaluate((id) => window.__rhizome.selectSession(id), last.id);
  await page.waitForSelector(`[data-testid=session-item][data-session="${last.id}"].selected`);
  assert.ok((await rows()) > PAGE);
  assert.deepEqual(problems, []);
});

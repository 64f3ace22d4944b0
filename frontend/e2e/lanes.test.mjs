// The lanes of the 19 real sessions (app/samples, the Claude Code and Codex
// testdata), all projects, at rest at 1440x900 and 1024x768: every lane has
// its title, titles overlap neither each other nor any lane's nodes, and a
// title's start (its date) is never cut: the name gives way.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { openPage, overlaps, REPO, shot, startServe } from './harness.mjs';

let serve;
let sessions;
before(async () => {
  serve = await startServe();
  // By path, as `rhizome import` does (the Claude Code sub-agents and Codex
  // windows are found beside their sessions), into the library serve reads.
  execFileSync(process.env.RHIZOME_BIN, ['import', '--db', serve.db, ...['app/samples', 'backend/claudecode/testdata', 'backend/codex/testdata'].map((p) => join(REPO, p))], { stdio: 'ignore' });
  sessions = await serve.call('Library', 'Sessions', '');
});
after(async () => serve?.stop());

for (const [w, h] of [[1440, 900], [1024, 768]]) {
  test(`every lane has its title, clear of the other titles and of the nodes, its date whole (${w}x${h})`, async () => {
    const { browser, page, problems } = await openPage(serve.url, { width: w, height: h });
    try {
      await page.waitForFunction((n) => document.querySelectorAll('[data-testid=lane-label]').length >= n, sessions.length, { timeout: 20_000 })
        .catch(() => {});
      await page.waitForTimeout(800);
      const { titles, nodes } = await page.evaluate(() => {
        const titles = [...document.querySelectorAll('[data-testid=lane-label]')].map((el) => {
          const b = el.getBoundingClientRect();
          const when = el.querySelector('.when')?.getBoundingClientRect();
          return { text: el.textContent, x: b.left, y: b.top, width: b.width, height: b.height, whenRight: when?.right ?? null };
        });
        const nodes = window.__rhizome.nodeIds().map((id) => ({ id, p: window.__rhizome.nodePosition(id) })).filter((n) => n.p)
          .map(({ id, p }) => ({ id, x: p.x - 5, y: p.y - 5, width: 10, height: 10 }));
        return { titles, nodes };
      });
      await shot(page, `lanes-real-${w}x${h}`);
      assert.equal(titles.length, sessions.length, `${titles.length} lane titles for ${sessions.length} sessions`);
      for (const [i, a] of titles.entries()) {
        for (const b of titles.slice(i + 1)) assert.ok(!overlaps(a, b, 1), `"${a.text}" overlaps "${b.text}"`);
        for (const n of nodes) assert.ok(!overlaps(a, n, 1), `"${a.text}" lies over node ${n.id}`);
        if (a.whenRight !== null) assert.ok(a.whenRight <= a.x + a.width + 0.5, `"${a.text}": its date is cut`);
      }
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
    }
  });
}

// End-to-end harness: a real `rhizome serve` on a fresh library per test
// file, and headless Chromium (playwright-core, /usr/bin/chromium) on it.
//
//   RHIZOME_BIN   the rhizome binary (built with the current frontend/dist
//                 embedded); `npm run test:e2e` builds one when unset
//   CHROMIUM      the browser, default /usr/bin/chromium
//   SHOTS         where screenshots go, default /tmp/rhizome-shots

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** A real pi session: the bundled sample, else the shared copy beside the repository. */
export const SAMPLE = [
  join(REPO, 'app/samples/session-with-compaction.jsonl'),
  join(REPO, '../shared/sessions/session-with-compaction.jsonl'),
].find((p) => existsSync(p)) ?? join(REPO, 'app/samples/session-with-compaction.jsonl');
export const SHOTS = process.env.SHOTS ?? '/tmp/rhizome-shots';

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--headless',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Starts `$RHIZOME_BIN serve` on a fresh temporary library. Its first stdout
 * line is the URL to open (http://127.0.0.1:PORT/?token=TOKEN). args are
 * further flags (`--test-provider` for a local fake model).
 */
export async function startServe({ args = [] } = {}) {
  const bin = process.env.RHIZOME_BIN;
  if (!bin) throw new Error('RHIZOME_BIN is not set: the path of a rhizome binary built with this frontend');
  const dir = mkdtempSync(join(tmpdir(), 'rhizome-e2e-'));
  const db = join(dir, 'library.db');
  const child = spawn(bin, ['serve', '--db', db, '--addr', '127.0.0.1:0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const url = await new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`rhizome serve printed no URL within 20 s; stderr:\n${stderr}`)), 20_000);
    const lines = createInterface({ input: child.stdout });
    lines.once('line', (line) => {
      clearTimeout(timer);
      ok(line.trim());
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`rhizome serve exited with ${code} before printing its URL; stderr:\n${stderr}`));
    });
  });
  if (!/^http:\/\/127\.0\.0\.1:\d+\/\?token=\S+$/.test(url)) {
    child.kill();
    throw new Error(`rhizome serve's first line is not its URL: ${JSON.stringify(url)}`);
  }
  const u = new URL(url);
  const token = u.searchParams.get('token');
  return {
    url,
    origin: u.origin,
    token,
    db,
    /** Calls a use case from the test's side: POST /api/<Area>/<Method>. */
    async call(area, method, ...args) {
      const res = await fetch(`${u.origin}/api/${area}/${method}?token=${token}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(args),
      });
      const body = await res.json();
      if (!res.ok) throw new Error(`${area}.${method}: ${body?.error ?? res.status}`);
      return body;
    },
    /** Every entry of a node's segment, page by page (Library.SegmentEntries). */
    async entries(nodeId) {
      const out = [];
      for (;;) {
        const page = await this.call('Library', 'SegmentEntries', nodeId, out.length, 0);
        out.push(...(page.entries ?? []));
        if ((page.entries ?? []).length === 0 || out.length >= page.total) return out;
      }
    },
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((ok) => {
          const t = setTimeout(() => {
            child.kill('SIGKILL');
            ok();
          }, 5000);
          child.once('exit', () => {
            clearTimeout(t);
            ok();
          });
        });
      }
      rmSync(dir, { recursive: true, force: true });
    },
    stderr: () => stderr,
  };
}

/** Launches Chromium and opens a page; page errors and console errors are collected. */
export async function openPage(url, { colorScheme = 'light', width = 1440, height = 900 } = {}) {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
  });
  const page = await browser.newPage({ viewport: { width, height }, colorScheme });
  const problems = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  await page.goto(url);
  await page.waitForFunction(() => window.__rhizome !== undefined);
  return { browser, page, problems };
}

/** Saves a screenshot as SHOTS/<name>.png. */
export async function shot(page, name) {
  mkdirSync(SHOTS, { recursive: true });
  const path = join(SHOTS, `${name}.png`);
  await page.screenshot({ path });
  return path;
}

/**
 * Drops files on the window the way a browser does: a DataTransfer holding
 * File objects, dispatched as dragenter, dragover and drop.
 */
export async function dropFiles(page, files) {
  const payload = files.map((f) => ({ name: f.name, b64: Buffer.from(f.bytes).toString('base64') }));
  await page.evaluate(async (items) => {
    const dt = new DataTransfer();
    for (const it of items) {
      const bin = atob(it.b64);
      const bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      dt.items.add(new File([bytes], it.name, { type: 'application/x-ndjson' }));
    }
    const fire = (type) =>
      window.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
    fire('dragenter');
    fire('dragover');
    await new Promise((r) => requestAnimationFrame(r));
    fire('drop');
  }, payload);
}

/** Waits for the import panel to report a finished import; returns the statuses listed. */
export async function waitImportDone(page, timeout = 60_000) {
  await page.waitForSelector('[data-testid=import-progress][data-state=done]', { timeout });
  await page.waitForSelector('[data-testid=import-results]', { timeout });
  return page.$$eval('[data-testid=import-result]', (els) => els.map((e) => e.getAttribute('data-status')));
}

/** Waits until the node count shown equals n. */
export async function waitNodeCount(page, n, timeout = 15_000) {
  await page.waitForFunction(
    (want) => document.querySelector('[data-testid=node-count]')?.textContent?.trim() === String(want),
    n,
    { timeout },
  );
}

/** The id of a node drawn on the canvas at a point nothing else covers, and that point. */
export async function clickableNode(page) {
  return page.evaluate(() => {
    const ids = window.__rhizome.nodeIds();
    const step = Math.max(1, Math.floor(ids.length / 200));
    for (let i = 0; i < ids.length; i += step) {
      const id = ids[i];
      const p = window.__rhizome.nodePosition(id);
      if (!p) continue;
      const el = document.elementFromPoint(p.x, p.y);
      if (el && el.tagName === 'CANVAS' && el.closest('[data-testid=graph-canvas]')) return { id, ...p };
    }
    return null;
  });
}

export const readSample = () => readFileSync(SAMPLE);

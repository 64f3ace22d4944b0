// End-to-end harness: a real `rhizome serve` on a fresh library per test
// file, and headless Chromium (playwright-core, /usr/bin/chromium) on it.
// The loom's model is the fake one (build/fakemodel), a process of its own.
//
//   RHIZOME_BIN   the rhizome binary (built with the current frontend/dist
//                 embedded); `npm run test:e2e` builds one when unset
//   RHIZOME_FAKEMODEL  the fake model command (go build ./build/fakemodel);
//                 `npm run test:e2e` builds one when unset
//   CHROMIUM      the browser, default /usr/bin/chromium
//   SHOTS         where screenshots go, default /tmp/rhizome-shots

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
 * Runs a command whose first stdout line is the URL it serves on; resolves
 * to { child, url, stderr() } once it has printed it.
 */
async function startPrinting(what, cmd, args, env = {}) {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const url = await new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`${what} printed no URL within 20 s; stderr:\n${stderr}`)), 20_000);
    const lines = createInterface({ input: child.stdout });
    lines.once('line', (line) => {
      clearTimeout(timer);
      ok(line.trim());
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`${what} exited with ${code} before printing its URL; stderr:\n${stderr}`));
    });
  });
  return { child, url, stderr: () => stderr };
}

/** Ends a child process: SIGTERM, then SIGKILL after 5 s. */
async function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
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

/**
 * Starts the fake OpenAI-compatible model ($RHIZOME_FAKEMODEL, build/fakemodel:
 * llmtest on loopback, made-up words streamed a chunk every `delay`; with
 * script, a list of texts, the first requests are answered with them, in
 * order). url is the base URL to give Settings.
 */
export async function startFakeModel({ delay = '20ms', script = null } = {}) {
  const bin = process.env.RHIZOME_FAKEMODEL;
  if (!bin) throw new Error('RHIZOME_FAKEMODEL is not set: the path of the fake model command (go build ./build/fakemodel)');
  const args = ['--addr', '127.0.0.1:0', '--delay', delay];
  if (script) {
    const file = join(mkdtempSync(join(tmpdir(), 'rhizome-script-')), 'script.json');
    writeFileSync(file, JSON.stringify(script));
    args.push('--script', file);
  }
  const { child, url, stderr } = await startPrinting('the fake model', bin, args);
  if (!/^http:\/\/127\.0\.0\.1:\d+\/v1$/.test(url)) {
    child.kill();
    throw new Error(`the fake model's first line is not its URL: ${JSON.stringify(url)}`);
  }
  return { url, stderr, stop: () => stopChild(child) };
}

/**
 * Starts `$RHIZOME_BIN serve` on a fresh temporary library. Its first stdout
 * line is the URL to open (http://127.0.0.1:PORT/?token=TOKEN). args are
 * further flags. With model ({ delay, script }), a fake model is started too and the
 * library's settings point at it (provider openai, model rhizome-test, n 3),
 * set through Settings.SetLLM before any page opens. env holds variables
 * set for the server alone (HOME, CLAUDE_CONFIG_DIR…: where the watched
 * folders are).
 */
export async function startServe({ args = [], model = null, env = {} } = {}) {
  const bin = process.env.RHIZOME_BIN;
  if (!bin) throw new Error('RHIZOME_BIN is not set: the path of a rhizome binary built with this frontend');
  const dir = mkdtempSync(join(tmpdir(), 'rhizome-e2e-'));
  const db = join(dir, 'library.db');
  const fake = model ? await startFakeModel(model) : null;
  let child, url, stderr;
  try {
    ({ child, url, stderr } = await startPrinting('rhizome serve', bin, ['serve', '--db', db, '--addr', '127.0.0.1:0', ...args], env));
  } catch (e) {
    await fake?.stop();
    throw e;
  }
  if (!/^http:\/\/127\.0\.0\.1:\d+\/\?token=\S+$/.test(url)) {
    child.kill();
    await fake?.stop();
    throw new Error(`rhizome serve's first line is not its URL: ${JSON.stringify(url)}`);
  }
  const u = new URL(url);
  const token = u.searchParams.get('token');
  const serve = {
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
      await stopChild(child);
      await fake?.stop();
      rmSync(dir, { recursive: true, force: true });
    },
    stderr,
  };
  if (fake) {
    await serve.call('Settings', 'SetLLM', {
      provider: 'openai', baseUrl: fake.url, model: 'rhizome-test', temperature: null, maxTokens: 0, n: 3, noStream: false,
    });
  }
  return serve;
}

/**
 * Launches Chromium and opens a page; page errors and console errors are
 * collected. reducedMotion 'reduce' is the system's reduce-motion setting:
 * the graph's camera jumps instead of animating (one frame instead of a
 * dozen of software WebGL's, seconds each with 10,000 nodes).
 */
export async function openPage(url, { colorScheme = 'light', width = 1440, height = 900, reducedMotion = 'no-preference' } = {}) {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
  });
  const page = await browser.newPage({ viewport: { width, height }, colorScheme, reducedMotion });
  const problems = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}${m.location()?.url ? ` (${m.location().url})` : ''}`);
  });
  // A call the server refused: which one, with what, so a failure says so.
  page.on('response', (r) => {
    if (r.status() >= 400 && new URL(r.url()).pathname.startsWith('/api/'))
      console.log(`# ${r.status()} from ${new URL(r.url()).pathname} ${r.request().postData() ?? ''}`.slice(0, 400));
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

/** Waits until the node count shown equals n (the bound is for a hang: a busy machine took over 15 s). */
export async function waitNodeCount(page, n, timeout = 60_000) {
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

/** The three real sample sessions (app/samples). */
export const SAMPLES = ['session-with-compaction.jsonl', 'large-session.jsonl', 'compact-with-images.jsonl'].map((f) => join(REPO, 'app/samples', f));

/**
 * n real session files (as {name, bytes}) for a library of several sessions:
 * the three samples, then the first lines of a sample under a session id of
 * its own (pi starts a new session file with a new id; the entries are the
 * sample's, byte for byte). Deterministic.
 */
export function sessionFiles(n) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const src = SAMPLES[i % SAMPLES.length];
    const text = readFileSync(src, 'utf8');
    if (i < SAMPLES.length) {
      out.push({ name: src.split('/').pop(), bytes: Buffer.from(text) });
      continue;
    }
    const lines = text.split('\n');
    const keep = Math.max(40, Math.floor(lines.length / (2 + (i % 3))));
    const header = JSON.parse(lines[0]);
    header.id = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
    const body = [JSON.stringify(header), ...lines.slice(1, keep)].join('\n') + '\n';
    out.push({ name: `session-${i + 1}.jsonl`, bytes: Buffer.from(body) });
  }
  return out;
}

/**
 * A small hand-made pi session (as {name, bytes}): the header naming cwd, one
 * user message (prompt, which the offline summary titles the session with)
 * and one answer by model of provider, with its usage (tokens, cost in USD).
 * n makes the ids and times distinct.
 */
export function piSession({ n, cwd, prompt, answer = 'Done.', provider = 'anthropic', model = 'claude-opus-4-5', tokens = 1000, cost = 0.01 }) {
  const id = `00000000-0000-4000-9000-${String(n).padStart(12, '0')}`;
  const t = (s) => new Date(Date.UTC(2025, 11, 1 + n, 9, 0, s)).toISOString();
  const lines = [
    { type: 'session', id, timestamp: t(0), cwd, provider, modelId: model },
    { type: 'message', timestamp: t(1), message: { role: 'user', content: [{ type: 'text', text: prompt }] } },
    { type: 'message', timestamp: t(20), message: { role: 'assistant', content: [{ type: 'text', text: answer }], provider, model,
      usage: { input: tokens / 2, output: tokens / 2, cacheRead: 0, cacheWrite: 0, totalTokens: tokens, cost: { total: cost } }, stopReason: 'stop' } },
  ];
  return { name: `hand-made-${n}.jsonl`, bytes: Buffer.from(lines.map((l) => JSON.stringify(l)).join('\n') + '\n') };
}

/** Imports files ({name, bytes}) through the use case a browser drop calls, then waits for their analysis; returns the report. */
export async function importFiles(serve, files) {
  const rep = await serve.call('Import', 'ImportFiles', files.map((f) => ({ name: f.name, content: Buffer.from(f.bytes).toString('base64') })));
  await analysed(serve);
  return rep;
}

/**
 * Waits until no session is still being analysed: an import makes sessions readable and the
 * server's background queue derives their summaries, knowledge and relations after it (issue 25).
 */
export async function analysed(serve, timeoutMs = 120_000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const st = await serve.call('Summaries', 'QueueStatus');
    if (!st.analysing) return;
    if (Date.now() > end) throw new Error(`sessions still being analysed after ${timeoutMs} ms: ${JSON.stringify(st)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Whether two boxes ({x, y, width, height}) overlap by more than slack pixels each way. */
export function overlaps(a, b, slack = 0) {
  return a.x + slack < b.x + b.width && b.x + slack < a.x + a.width && a.y + slack < b.y + b.height && b.y + slack < a.y + a.height;
}

/**
 * Why the element matching selector cannot be used where it is: "" when it
 * is whole in the window, not cut off by an ancestor that clips overflow,
 * and what is at its centre is it (nothing covers it).
 */
export async function unreachable(page, selector) {
  return page.evaluate((sel) => {
    const el = document.querySelector(sel);
    if (!el) return `${sel}: not in the page`;
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) return `${sel}: not shown`;
    if (r.left < 0 || r.top < 0 || r.right > innerWidth + 0.5 || r.bottom > innerHeight + 0.5) {
      return `${sel}: outside the ${innerWidth}x${innerHeight} window (${r.left.toFixed(0)},${r.top.toFixed(0)} ${r.width.toFixed(0)}x${r.height.toFixed(0)})`;
    }
    for (let p = el.parentElement; p; p = p.parentElement) {
      const s = getComputedStyle(p);
      if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
      const q = p.getBoundingClientRect();
      if (r.left < q.left - 0.5 || r.right > q.right + 0.5 || r.top < q.top - 0.5 || r.bottom > q.bottom + 0.5) {
        return `${sel}: cut off by ${p.tagName.toLowerCase()}.${[...p.classList].join('.')} (${r.left.toFixed(0)}..${r.right.toFixed(0)} in ${q.left.toFixed(0)}..${q.right.toFixed(0)})`;
      }
    }
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (!hit || !(hit === el || el.contains(hit))) return `${sel}: covered by ${hit?.tagName.toLowerCase()}.${[...(hit?.classList ?? [])].join('.')}`;
    return '';
  }, selector);
}

/**
 * Starts serve's watcher and waits for its first pass over the folders to
 * end. A file the first pass finds is what the folder held when the watcher
 * started, not live; one written after it is. On a busy machine the first
 * pass can take seconds, so a test that writes a file to see it arrive live
 * waits for it.
 */
export async function startWatcher(serve, timeout = 120_000) {
  const before = (await serve.call('Watch', 'Status')).lastImport ?? '';
  await serve.call('Watch', 'Start');
  const end = Date.now() + timeout;
  for (;;) {
    const st = await serve.call('Watch', 'Status');
    if (st.running && (st.lastImport ?? '') !== '' && st.lastImport !== before) return st;
    if (Date.now() > end) throw new Error(`the watcher's first pass did not end in ${timeout} ms: ${JSON.stringify(st)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// `npm run test:e2e`: runs the end-to-end tests against a real `rhizome
// serve`. With RHIZOME_BIN set, that binary is used as it is (it must embed
// the current frontend/dist); without it, the frontend and a binary are
// built first (needs Go). The same for the fake model command
// (RHIZOME_FAKEMODEL, build/fakemodel).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPO } from './harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const env = { ...process.env };

if (!env.RHIZOME_BIN) {
  console.log('RHIZOME_BIN is not set: building the frontend and rhizome');
  execFileSync('npm', ['run', 'build'], { cwd: join(here, '..'), stdio: 'inherit' });
  const bin = join(mkdtempSync(join(tmpdir(), 'rhizome-bin-')), 'rhizome');
  execFileSync('go', ['build', '-o', bin, '.'], { cwd: REPO, stdio: 'inherit' });
  env.RHIZOME_BIN = bin;
}
if (!env.RHIZOME_FAKEMODEL) {
  const bin = join(mkdtempSync(join(tmpdir(), 'rhizome-fakemodel-')), 'fakemodel');
  execFileSync('go', ['build', '-o', bin, './build/fakemodel'], { cwd: REPO, stdio: 'inherit' });
  env.RHIZOME_FAKEMODEL = bin;
}

// One file at a time (RHIZOME_E2E_CONCURRENCY sets more): two at once, beside
// go test, starved the 12,000-node force layout's page of the main thread.
// The timeout bounds a test that hangs, far above the longest file's time.
const only = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.test.mjs'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort()
  .map((f) => join(here, f));

const res = spawnSync(
  process.execPath,
  ['--test', `--test-concurrency=${env.RHIZOME_E2E_CONCURRENCY ?? 1}`, '--test-timeout=600000', ...files],
  { stdio: 'inherit', env },
);
process.exit(res.status ?? 1);

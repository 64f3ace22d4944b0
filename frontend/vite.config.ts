import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineConfig, type Plugin } from 'vitest/config';
import { svelte } from '@sveltejs/vite-plugin-svelte';

// dist/.gitkeep is committed: the Go embed needs the folder in a fresh clone,
// before any build. The build empties dist/ first, so it writes the file back
// (whoever runs it: make, npm run build or npx vite build).
const keepDist: Plugin = {
  name: 'rhizome-keep-dist',
  apply: 'build',
  closeBundle() {
    writeFileSync(resolve(__dirname, 'dist/.gitkeep'), '');
  },
};

// `npm run dev` with RHIZOME_URL=http://127.0.0.1:PORT (a running
// `rhizome serve`) proxies /api there; open the dev page with ?token=TOKEN.
// The proxy drops the Origin header, which serve checks against its own.
const target = process.env.RHIZOME_URL;

// The Go binary embeds dist/ (Wails window and `rhizome serve`), so assets
// use relative URLs and the build goes to dist/ next to this file.
export default defineConfig({
  plugins: [svelte(), keepDist],
  base: './',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 1500,
  },
  server: target
    ? {
        proxy: {
          '/api': {
            target,
            changeOrigin: true,
            configure: (proxy) => proxy.on('proxyReq', (req) => req.removeHeader('origin')),
          },
        },
      }
    : undefined,
  test: {
    include: ['src/**/*.test.ts'],
    environment: 'node',
    // A bound for a test that hangs, not a speed check: the 5 s default was
    // missed by a scene of 2,000 reasoning nodes on a loaded two-core machine
    // (13.8 s). Speed is measured by `make bench` (*.bench.ts).
    testTimeout: 60_000,
    benchmark: { include: ['src/**/*.bench.ts'] },
  },
});

import { defineConfig } from 'vitest/config';
import { svelte } from '@sveltejs/vite-plugin-svelte';

// `npm run dev` with RHIZOME_URL=http://127.0.0.1:PORT (a running
// `rhizome serve`) proxies /api there; open the dev page with ?token=TOKEN.
// The proxy drops the Origin header, which serve checks against its own.
const target = process.env.RHIZOME_URL;

// The Go binary embeds dist/ (Wails window and `rhizome serve`), so assets
// use relative URLs and the build goes to dist/ next to this file.
export default defineConfig({
  plugins: [svelte()],
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
  },
});

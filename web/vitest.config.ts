import { defineConfig } from 'vitest/config';

// The web app's unit tests: plain modules (stream reading, citations, URL filtering, routing),
// no browser needed. `npx vitest run --config web/vitest.config.ts` from the repository root.
export default defineConfig({
  root: new URL('.', import.meta.url).pathname,
  // Vitest's cache beside the repository's others, not in a web/node_modules of its own.
  cacheDir: '../node_modules/.vite/web',
  test: {
    name: 'web',
    include: ['src/**/*.test.ts'],
    environment: 'node',
  },
});

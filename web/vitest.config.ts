import { defineConfig } from 'vitest/config';

// The web app's unit tests: plain modules (stream reading, citations, URL filtering, routing),
// no browser needed. `npx vitest run --config web/vitest.config.ts` from the repository root.
export default defineConfig({
  root: new URL('.', import.meta.url).pathname,
  test: {
    name: 'web',
    include: ['src/**/*.test.ts'],
    environment: 'node',
  },
});

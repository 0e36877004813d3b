import { configDefaults, defineConfig } from 'vitest/config';
import { SlowFirstSequencer } from './test/helpers/slow-first-sequencer.js';

// Every test runs on the embedded PGlite; the tests that use a database run a second time on
// real PostgreSQL when TEST_DATABASE_URL is set (CI sets it).
// The browser tests (test/browser) are their own project: PGlite only, the web app built first.
const browserTests = ['test/browser/**/*.test.ts'];

const databaseTests = [
  'src/http/**/*.test.ts',
  'src/jobs/**/*.test.ts',
  'src/db/watched-pool.test.ts',
  'src/retrieval/team-search.test.ts',
  'src/indexing/store-documents.test.ts',
  'src/retrieval/lexical-index/team-lexical-indexes.test.ts',
  'src/retrieval/lexical-index/english-words.test.ts',
  // Every use case's direct test, and the repositories' statements, on both databases.
  'src/services/**/*.test.ts',
  'src/db/repositories/**/*.test.ts',
  'src/db/repositories.test.ts',
  'test/**/*.test.ts',
];

/**
 * Under the folders above but the same on any database, so PGlite's run covers them: HTTP
 * validation and limits (the endpoint fuzzing, request limits, hardening), parsing caps (the
 * bombs, the large DOCX), the CLI over HTTP, and encryption at rest (done before any database sees a secret).
 */
const databaseIndependentTests = [
  'test/fuzz/**',
  'src/http/request-limits.test.ts',
  'src/http/hardening.test.ts',
  'test/e2e/archive-bomb.test.ts',
  'test/e2e/large-docx.test.ts',
  'test/e2e/cli.test.ts',
  'test/e2e/secrets-at-rest.test.ts',
];

/**
 * The file that counts V8's block executions: run in a fork of its own, where nothing compiled the
 * code it measures before it started counting. Every other file shares its fork's modules with the
 * files before it in the same project (`isolate: false`), instead of importing the service and
 * compiling PGlite's WASM anew: the PGlite pass took less than half the time.
 */
const ownProcessTests = ['src/indexing/regex-safety.test.ts'];

export default defineConfig({
  test: {
    // Bounds for a hang, not deadlines: a user's laptop or a CI machine is busy (the tests once passed
    // beside a busy loop), so a test waits on events and only a hang should reach these.
    testTimeout: 120_000,
    hookTimeout: 300_000,
    // expect.poll's own default is 1 s: a deadline a busy machine misses.
    expect: { poll: { timeout: 60_000 } },
    pool: 'forks',
    // Vitest still starts each project's files in new forks, after the last project's.
    isolate: false,
    sequence: { sequencer: SlowFirstSequencer },
    // Vitest's default is one fork fewer than the cores: one on CI's two. Most files wait on child
    // processes, sockets and timers more than they compute, so two forks share two cores well.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'pglite',
          // Test apps start from one migrated in-memory database instead of creating their own.
          globalSetup: ['test/helpers/pglite-snapshot-setup.ts'],
          include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'web/src/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...browserTests, ...ownProcessTests],
        },
      },
      {
        extends: true,
        test: { name: 'pglite-own-process', include: ownProcessTests },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          include: browserTests,
          globalSetup: ['test/browser/build-web-app.ts', 'test/helpers/pglite-snapshot-setup.ts'],
        },
      },
      ...(process.env.TEST_DATABASE_URL
        ? [
            {
              extends: true as const,
              test: {
                name: 'postgres',
                include: databaseTests,
                exclude: [...configDefaults.exclude, ...browserTests, ...databaseIndependentTests],
                env: { TEST_DB_KIND: 'postgres' },
              },
            },
          ]
        : []),
    ],
  },
});

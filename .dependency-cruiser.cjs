/**
 * The layers of docs/ARCHITECTURE.md, checked by `npm run lint` (dependency-cruiser):
 *
 *   http -> services -> (indexing | retrieval | answering | jobs) -> (db | adapters) -> shared
 *
 * A layer imports only from layers to its right. The shared modules at the root of src/
 * (errors, caller, access, config, logger, batcher, text scanning, sentence splitting, code fences) import
 * no layer. The composition (main.ts, deps.ts, worker.ts) may import anything; nothing imports it
 * but the entry points (and tests). Type-only imports count: a type is a dependency too.
 */
const SHARED =
  '^src/(errors|caller|access|config|logger|batcher|text-scanning|sentence-splitting|markdown-fence|identifier-words)\\.ts$';
const COMPOSITION = '^src/(main|deps|worker)\\.ts$';
/** Tests wire real pieces of several layers together; they are checked only for cycles. */
const TESTS = '\\.test\\.tsx?$';

/** A rule forbidding imports from the folders (or root modules) in `to`. */
function forbid(name, comment, from, to) {
  return { name, comment, severity: 'error', from: { path: from, pathNot: TESTS }, to: { path: to } };
}

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'A cycle makes load order matter and layers meaningless.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    forbid(
      'shared-imports-no-layer',
      'The shared modules are leaves: every layer may use them, so they may use no layer.',
      SHARED,
      '^src/(http|services|indexing|retrieval|answering|jobs|db|adapters|security|cli)/',
    ),
    {
      name: 'composition-is-the-top',
      comment: 'Only the entry points start the composition root; layers receive what it built.',
      severity: 'error',
      from: { path: '^src/', pathNot: `${COMPOSITION}|^src/cli\\.ts$|\\.test\\.ts$` },
      to: { path: COMPOSITION },
    },
    forbid(
      'services-not-http',
      'Use cases are transport-free: HTTP calls them, never the reverse.',
      '^src/services/',
      '^src/http/',
    ),
    {
      name: 'services-see-db-types-only',
      comment:
        'Use cases reach stored data through the data port (ServiceDependencies.data), bound in deps.ts: ' +
        'from db/ they import types (repository interfaces, row shapes), never a repository or a connection.',
      severity: 'error',
      from: { path: '^src/services/', pathNot: TESTS },
      to: { path: '^src/db/', dependencyTypesNot: ['type-only'] },
    },
    forbid(
      'middle-layers-not-up',
      'Indexing, retrieval, answering and jobs serve the use cases; they never reach back up.',
      '^src/(indexing|retrieval|answering|jobs)/',
      '^src/(http|services)/',
    ),
    forbid(
      'indexing-alone',
      'Indexing writes what retrieval reads; they share the db layer, not each other.',
      '^src/indexing/',
      '^src/(retrieval|answering|jobs)/',
    ),
    forbid(
      'retrieval-alone',
      'Retrieval ranks stored passages; it knows nothing of how they were indexed or answered.',
      '^src/retrieval/',
      '^src/(indexing|answering|jobs)/',
    ),
    forbid(
      'answering-reads-retrieval-only',
      'Answers are written from retrieved passages (retrieval/search-types.ts).',
      '^src/answering/',
      '^src/(indexing|jobs)/',
    ),
    forbid(
      'jobs-run-indexing-only',
      "The job queue runs the pipeline's jobs; use cases reach it through job definitions wired in deps.ts.",
      '^src/jobs/',
      '^src/(retrieval|answering)/',
    ),
    forbid(
      'db-is-a-floor',
      'The database layer knows tables and statements, nothing above them.',
      '^src/db/',
      '^src/(http|services|indexing|retrieval|answering|jobs|adapters|cli)/',
    ),
    forbid(
      'sql-only-in-repositories',
      "Tables and query builders are the db layer's: use cases, the pipeline and search call repositories.",
      '^src/(?!db/)',
      '^src/db/schema\\.ts$|drizzle-orm',
    ),
    forbid(
      'adapters-are-a-floor',
      'Adapters talk to outside systems for the layers above; they never call those layers.',
      '^src/adapters/',
      '^src/(http|services|indexing|retrieval|answering|jobs|cli)/',
    ),
    forbid(
      'security-is-a-floor',
      'Cryptography and address rules are used by every layer and use none of them.',
      '^src/security/',
      '^src/(http|services|indexing|retrieval|answering|jobs|db|adapters|cli)/',
    ),
    forbid(
      'cli-speaks-http',
      'The CLI is an API client: it talks to the service over HTTP, never to its internals.',
      '^src/cli/',
      '^src/(http|services|indexing|retrieval|answering|jobs|db|adapters|security)/',
    ),
    forbid(
      'web-speaks-the-public-api',
      'The web app uses only the public API: no server code in the browser bundle.',
      '^web/',
      '^(src|test|bench)/',
    ),
    forbid(
      'server-not-web',
      'The server serves the built web app; it never imports its source.',
      '^src/',
      '^web/',
    ),
    forbid(
      'production-not-tests',
      'Code that ships imports no test helpers or fakes.',
      '^(src|web/src)/',
      '^test/',
    ),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.mjs'] },
  },
};

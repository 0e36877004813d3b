import { parseArgs } from 'node:util';

export type DatabaseName = 'pglite' | 'postgres';
export type ScenarioName = 'lexical' | 'embeddings';
/** `corpus`: the SciFact corpus's indexing speed; `reads`: reads while a big file and the corpus are indexed. */
export type SectionName = 'corpus' | 'reads';

/** Settings of the indexing benchmark; flags win over BENCH_* variables, which win over defaults. */
export interface IndexingSettings {
  readonly sections: readonly SectionName[];
  readonly databases: readonly DatabaseName[];
  readonly scenarios: readonly ScenarioName[];
  /** Worker processes (`--role=worker`) beside one `--role=api` in the extra PostgreSQL rows; 0: none. */
  readonly workers: number;
  /** The SciFact folder (corpus.jsonl). */
  readonly datasetDir: string;
  /** Documents to upload (the first N of the corpus); undefined: all. */
  readonly limit: number | undefined;
  /** Documents per upload request. */
  readonly batchSize: number;
  /** Upload requests in flight at once. */
  readonly inFlight: number;
  /** The fake embedding server's delay per request, in ms. */
  readonly embeddingDelayMs: number;
  /** The fake embedding server's vector length. */
  readonly dimensions: number;
  /** One `GET /healthz` every this many ms during indexing. */
  readonly probeIntervalMs: number;
  /** Give up on a scenario after this many seconds of indexing. */
  readonly timeoutSeconds: number;
  /** Skip `npm run build` (use the dist/ already there). */
  readonly build: boolean;
  /** Where to write V8 CPU profiles of the service processes (figures not written then). */
  readonly cpuProfileDir: string | undefined;
  /** Where to write, per scenario, the SQL statements the service ran (figures not written then). */
  readonly statementsDir: string | undefined;
  /** Write docs/benchmarks.md (off for trial runs). */
  readonly write: boolean;
  /** The reads section's settings. */
  readonly reads: ReadsSettings;
}

/** Settings of `--section=reads`. */
export interface ReadsSettings {
  /** Size of the big Markdown file, in MiB. */
  readonly bigFileMiB: number;
  /** SciFact documents indexed first (under external ids `seed-…`), so that searches find something. */
  readonly seedDocuments: number;
  /** Length of each idle phase, in seconds. */
  readonly idleSeconds: number;
  /** One search, one job status and one /healthz request every this many ms, each on its own schedule. */
  readonly intervalMs: number;
  /** Give up on an indexing phase after this many seconds. */
  readonly phaseTimeoutSeconds: number;
  /** Seconds left to the service after the deletes and after the restart before the folder is measured. */
  readonly settleSeconds: number;
}

export const DEFAULT_DATASET_DIR = '/work/shared/datasets/scifact';

export const USAGE = `npx tsx bench/indexing/run.ts [options]   (npm run bench:indexing -- [options])

Two sections, each written to its own part of docs/benchmarks.md:
  corpus  uploads the SciFact corpus through POST /v1/documents and measures how long the service
          takes to make every document searchable, on PGlite and PostgreSQL, with and without
          embeddings (about 4 minutes);
  reads   times searches, job-status requests and /healthz, every 250 ms each, on an idle service
          and while a ~30 MiB Markdown file (one multipart upload) and then the SciFact corpus are
          indexed; the 202 of the big upload, memory, and on PGlite the data folder's size after
          indexing, after deleting the uploads and after a restart (about 10 to 15 minutes).

Options (or the BENCH_* variable in brackets):
  --section LIST        corpus,reads (BENCH_SECTION, default both); e.g. --section=reads
  --databases LIST      pglite,postgres (BENCH_DATABASES, default both)
  --limit N             upload only the first N documents of SciFact (BENCH_LIMIT; default: all 5,183)
  --batch N             documents per upload request (BENCH_BATCH, default 250)
  --in-flight N         upload requests in flight at once (BENCH_IN_FLIGHT, default 2)
  --dataset DIR         the SciFact copy (BENCH_SCIFACT_DIR, default ${DEFAULT_DATASET_DIR})
  --no-build            use the existing dist/ instead of running npm run build
  --no-write            print the figures without writing docs/benchmarks.md
  -h, --help            this text
  PostgreSQL: BENCH_DATABASE_URL (default postgres://postgres:postgres@127.0.0.1:5432/rag_test)

corpus section:
  --scenarios LIST      lexical,embeddings (BENCH_SCENARIOS, default both)
  --workers N           also run PostgreSQL as --role=api + N --role=worker processes
                        (BENCH_WORKERS, default 2; 0: no such rows)
  --embedding-delay MS  the fake embedding server's delay per request (BENCH_EMBEDDING_DELAY, default 300)
  --dimensions N        vector length of the fake embeddings (BENCH_DIMENSIONS, default 384)
  --probe-interval MS   one GET /healthz every MS during indexing (BENCH_PROBE_INTERVAL, default 20)
  --timeout S           give up on a scenario after S seconds of indexing (BENCH_TIMEOUT, default 900)
  --cpu-prof DIR        write V8 CPU profiles of the service processes into DIR (BENCH_CPU_PROF); the
                        reads section adds DIR/reads-DATABASE/probes.json, each probe's time and latency
  --statements DIR      count the SQL statements the service runs, per scenario, into DIR (BENCH_STATEMENTS)

reads section:
  --big-file-mb N       size of the big Markdown file in MiB (BENCH_BIG_FILE_MB, default 30; may be
                        fractional, e.g. 2.5; the 202 and memory targets are checked only at 30 or more)
  --seed-documents N    SciFact documents indexed before the idle phase (BENCH_SEED_DOCUMENTS, default 300)
  --idle-seconds S      length of each idle phase (BENCH_IDLE_SECONDS, default 60: 240
                        searches, so that the idle p99 is not simply the second slowest)
  --reads-interval MS   one search, one job status and one /healthz every MS, each on its own
                        schedule (BENCH_READS_INTERVAL, default 250)
  --phase-timeout S     give up on an indexing phase after S seconds (BENCH_PHASE_TIMEOUT, default 600)
  --settle S            seconds the service is left idle once it has logged its vacuum after the
                        deletes, and after the restart, before its folder is measured (BENCH_SETTLE,
                        default 10)
  For a quick check: --section=reads --databases=pglite --big-file-mb=2 --limit=500 --idle-seconds=5

With --cpu-prof or --statements the service is slowed down, so docs/benchmarks.md is left as it was.`;

function list<T extends string>(raw: string, allowed: readonly T[], what: string): T[] {
  const items = raw
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  for (const item of items) {
    if (!(allowed as readonly string[]).includes(item)) {
      throw new Error(`unknown ${what} "${item}": use ${allowed.join(' and/or ')}\n\n${USAGE}`);
    }
  }
  if (items.length === 0) throw new Error(`no ${what} given\n\n${USAGE}`);
  return [...new Set(items)] as T[];
}

export function parseIndexingSettings(argv: readonly string[], env: NodeJS.ProcessEnv): IndexingSettings {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      databases: { type: 'string' },
      section: { type: 'string' },
      scenarios: { type: 'string' },
      workers: { type: 'string' },
      limit: { type: 'string' },
      batch: { type: 'string' },
      'in-flight': { type: 'string' },
      'embedding-delay': { type: 'string' },
      dimensions: { type: 'string' },
      'probe-interval': { type: 'string' },
      timeout: { type: 'string' },
      dataset: { type: 'string' },
      'cpu-prof': { type: 'string' },
      statements: { type: 'string' },
      'big-file-mb': { type: 'string' },
      'seed-documents': { type: 'string' },
      'idle-seconds': { type: 'string' },
      'reads-interval': { type: 'string' },
      'phase-timeout': { type: 'string' },
      settle: { type: 'string' },
      'no-build': { type: 'boolean' },
      'no-write': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help === true) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const integer = (
    flag: string | undefined,
    variable: string,
    fallback: number | undefined,
    min: number,
    max: number,
  ): number | undefined => {
    const raw = flag ?? env[variable];
    if (raw === undefined || raw.trim() === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new Error(`${variable} / its flag must be a whole number from ${min} to ${max} (got "${raw}")`);
    }
    return value;
  };
  const required = (...args: Parameters<typeof integer>): number => integer(...args) ?? args[2] ?? 0;
  const optionalDir = (flag: string | undefined, variable: string) => {
    const raw = flag ?? env[variable];
    return raw === undefined || raw === '' ? undefined : raw;
  };
  const bigFileRaw = values['big-file-mb'] ?? env.BENCH_BIG_FILE_MB;
  let bigFileMiB = 30;
  if (bigFileRaw !== undefined && bigFileRaw.trim() !== '') {
    bigFileMiB = Number(bigFileRaw);
    if (!Number.isFinite(bigFileMiB) || bigFileMiB < 0.01 || bigFileMiB > 1024) {
      throw new Error(
        `BENCH_BIG_FILE_MB / its flag must be a number from 0.01 to 1024 (got "${bigFileRaw}")`,
      );
    }
  }
  return {
    sections: list(values.section ?? env.BENCH_SECTION ?? 'corpus,reads', ['corpus', 'reads'], 'section'),
    databases: list(
      values.databases ?? env.BENCH_DATABASES ?? 'pglite,postgres',
      ['pglite', 'postgres'],
      'database',
    ),
    scenarios: list(
      values.scenarios ?? env.BENCH_SCENARIOS ?? 'lexical,embeddings',
      ['lexical', 'embeddings'],
      'scenario',
    ),
    workers: required(values.workers, 'BENCH_WORKERS', 2, 0, 16),
    datasetDir: values.dataset ?? env.BENCH_SCIFACT_DIR ?? DEFAULT_DATASET_DIR,
    limit: integer(values.limit, 'BENCH_LIMIT', undefined, 1, 10_000_000),
    batchSize: required(values.batch, 'BENCH_BATCH', 250, 1, 100_000),
    inFlight: required(values['in-flight'], 'BENCH_IN_FLIGHT', 2, 1, 64),
    embeddingDelayMs: required(values['embedding-delay'], 'BENCH_EMBEDDING_DELAY', 300, 0, 60_000),
    dimensions: required(values.dimensions, 'BENCH_DIMENSIONS', 384, 1, 16_000),
    probeIntervalMs: required(values['probe-interval'], 'BENCH_PROBE_INTERVAL', 20, 1, 10_000),
    timeoutSeconds: required(values.timeout, 'BENCH_TIMEOUT', 900, 10, 24 * 3600),
    build: values['no-build'] !== true,
    cpuProfileDir: optionalDir(values['cpu-prof'], 'BENCH_CPU_PROF'),
    statementsDir: optionalDir(values.statements, 'BENCH_STATEMENTS'),
    write: values['no-write'] !== true,
    reads: {
      bigFileMiB,
      seedDocuments: required(values['seed-documents'], 'BENCH_SEED_DOCUMENTS', 300, 1, 500),
      idleSeconds: required(values['idle-seconds'], 'BENCH_IDLE_SECONDS', 60, 1, 600),
      intervalMs: required(values['reads-interval'], 'BENCH_READS_INTERVAL', 250, 10, 10_000),
      phaseTimeoutSeconds: required(values['phase-timeout'], 'BENCH_PHASE_TIMEOUT', 600, 10, 24 * 3600),
      settleSeconds: required(values.settle, 'BENCH_SETTLE', 10, 0, 600),
    },
  };
}

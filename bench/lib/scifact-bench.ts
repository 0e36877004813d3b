import { installCleanupHandlers, runCleanups } from './children.js';
import { type AvailableDatabases, availableDatabases, type DatabaseName } from './databases.js';
import { formatNumber, publishSection } from './report.js';
import { DEFAULT_SCIFACT_DIR, loadScifact, type ScifactDocument, type ScifactQuery } from './scifact.js';
import { buildService, type RunningServer } from './service.js';
import type { Settings } from './settings.js';
import { scifactUploads, uploadAndWait, uploadBatches } from './upload.js';
import { type BenchUser, registerUser } from './users.js';

/** What every SciFact-on-the-running-service benchmark's settings hold (bench/mcp, bench/search-load). */
export interface ScifactBenchSettings {
  readonly databases: readonly DatabaseName[];
  readonly queries: number;
  readonly datasetDir: string;
  readonly cpuProfileDir: string | undefined;
  readonly build: boolean;
  readonly fromSource: boolean;
  readonly write: boolean;
}

/**
 * The outline such a benchmark shares: the databases that answer, the SciFact corpus and its
 * first `queries` test queries, the build, `measure` on each database in turn, and the section
 * `report` makes, published after `after` (not written when profiling or running from source).
 */
export async function runScifactBench<Settings extends ScifactBenchSettings, Outcome>(bench: {
  readonly name: string;
  readonly after: string;
  readonly settings: Settings;
  readonly progress: (line: string) => void;
  /** When the run gives up and cleans up (default 30 minutes): a guard against a hung run. */
  readonly deadlineMs?: number;
  measure(
    available: AvailableDatabases,
    database: DatabaseName,
    corpus: ReturnType<typeof loadScifact>,
    queries: readonly ScifactQuery[],
  ): Promise<Outcome>;
  report(
    available: AvailableDatabases,
    outcomes: readonly Outcome[],
    startedAt: Date,
  ): { markdown: string; checks: readonly { readonly met: boolean }[] };
}): Promise<void> {
  const { settings, progress } = bench;
  const startedAt = new Date();
  const available = await availableDatabases(settings.databases, progress);
  const corpus = loadScifact(settings.datasetDir);
  const queries = corpus.queries.slice(0, settings.queries);
  const uninstall = installCleanupHandlers(bench.deadlineMs ?? 30 * 60 * 1000);
  try {
    if (settings.build) {
      progress('npm run build');
      await buildService();
    }
    const outcomes: Outcome[] = [];
    for (const database of available.databases) {
      outcomes.push(await bench.measure(available, database, corpus, queries));
    }
    const withheld =
      settings.cpuProfileDir !== undefined
        ? `CPU profiles in ${settings.cpuProfileDir} (profiling slows the service)`
        : settings.fromSource
          ? 'run from source (--from-source), not the build'
          : undefined;
    publishSection(
      bench.name,
      bench.report(available, outcomes, startedAt),
      { write: settings.write, withheld, after: bench.after },
      progress,
    );
  } finally {
    await runCleanups();
    uninstall();
  }
}

/** The SciFact corpus indexed on a running service, and who uploaded it. */
export interface IndexedScifact {
  readonly user: BenchUser;
  readonly documents: number;
  readonly chunks: number;
  /** From the first upload request to the last job's `finished_at`. */
  readonly indexingSeconds: number;
}

/**
 * Signs a member up on the running service and uploads SciFact's abstracts through
 * `POST /v1/documents` as a client would (`batchSize` a request, 2 requests in flight), until
 * every job is done; throws unless every document was indexed.
 */
export async function indexScifact(
  running: RunningServer,
  userName: string,
  documents: readonly ScifactDocument[],
  options: { readonly batchSize: number; readonly timeoutSeconds: number },
  log: (message: string) => void,
): Promise<IndexedScifact> {
  const user = await registerUser(running.url, userName);
  const uploads = scifactUploads(documents);
  const { bodies, sizes } = uploadBatches(uploads, options.batchSize);
  log(`uploading ${formatNumber(uploads.length)} documents in ${bodies.length} requests`);
  const uploaded = await uploadAndWait(running.url, user.headers, bodies, sizes, {
    inFlight: 2,
    timeoutSeconds: options.timeoutSeconds,
    alive: () => running.child.process.exitCode === null && running.child.process.signalCode === null,
    progress: log,
  });
  const chunks = uploaded.jobs.reduce((sum, job) => sum + job.chunks, 0);
  const notIndexed = uploaded.jobs.reduce((sum, job) => sum + job.failed + job.skipped, 0);
  if (notIndexed > 0) throw new Error(`${notIndexed} documents were not indexed`);
  const indexingSeconds =
    (Math.max(...uploaded.jobs.map((job) => job.finishedAtMs)) - uploaded.startedAtMs) / 1000;
  log(`${formatNumber(chunks)} chunks indexed in ${indexingSeconds.toFixed(1)} s`);
  return { user, documents: uploads.length, chunks, indexingSeconds };
}

/** What `readScifactSettings` reads: a SciFact benchmark's settings adds its own to these. */
export type ScifactSettings = ReturnType<typeof readScifactSettings>;

/**
 * The settings every SciFact benchmark reads alike (its flags `databases`, `queries`, `batch`,
 * `timeout`, `dataset` and the service run's): which databases, how many test queries, how the
 * corpus is uploaded, and how the service runs.
 */
export function readScifactSettings(read: Settings) {
  return {
    databases: read.list('databases', 'BENCH_DATABASES', ['pglite', 'postgres'], ['pglite', 'postgres']),
    queries: read.number('queries', 'BENCH_QUERIES', 300, 1, 300),
    batchSize: read.number('batch', 'BENCH_BATCH', 250, 1, 500),
    timeoutSeconds: read.number('timeout', 'BENCH_TIMEOUT', 600, 10, 24 * 3600),
    datasetDir: read.string('dataset', 'BENCH_SCIFACT_DIR', DEFAULT_SCIFACT_DIR),
    ...read.serviceRun(),
  };
}

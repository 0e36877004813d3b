// `npm run bench:indexing` (`npx tsx bench/indexing/run.ts`): how fast the service indexes the
// SciFact corpus uploaded through POST /v1/documents, from the first upload request until every
// document is searchable, on PGlite and PostgreSQL, lexical only and with embeddings from a fake
// OpenAI-compatible server; with /healthz latency, CPU and memory meanwhile. Writes the indexing
// section of docs/benchmarks.md. `--section=reads` runs the other section instead (or as well, by
// default): reads while a big file and the corpus are indexed (reads-while-indexing.ts).
// `--help` lists the settings.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import pg from 'pg';
import ts from 'typescript';
import { FakeOpenAiServer } from '../../test/fakes/fake-openai-server.js';
import {
  type Child,
  deferCleanup,
  installCleanupHandlers,
  runBenchmark,
  runCleanups,
  spawnChild,
} from '../lib/children.js';
import { cpuAccountingAvailable } from '../lib/cpu.js';
import {
  type AvailableDatabases,
  availableDatabases,
  DATABASE_LABEL,
  directorySize,
  postgresHost,
  verdictLines,
} from '../lib/databases.js';
import { expectJson } from '../lib/http.js';
import { ROOT } from '../lib/paths.js';
import { createScratchDatabase } from '../lib/postgres.js';
import { commandLine, environmentLine, formatNumber, markdownTable, publishSection } from '../lib/report.js';
import { loadScifactCorpus } from '../lib/scifact.js';
import { buildService, type RunningServer, SERVICE_ENTRY, startService } from '../lib/service.js';
import { type Percentiles, sleep, summarise } from '../lib/stats.js';
import {
  type JobOutcome,
  scifactUploads,
  type UploadDocument,
  type UploadOutcome,
  uploadAndWait,
  uploadBatches,
} from '../lib/upload.js';
import { registerUser } from '../lib/users.js';
import {
  type DatabaseName,
  type IndexingSettings,
  parseIndexingSettings,
  type ScenarioName,
} from './options.js';
import type { ProbeSample } from './prober.js';
import { readsDeadlineSeconds, runReadsSection } from './reads-while-indexing.js';
import { ProcessSampler, type WindowUsage } from './sampler.js';
import type { StatementReport } from './statements-hook.js';

const SCENARIO_LABEL: Record<ScenarioName, string> = {
  lexical: 'lexical only',
  embeddings: 'with embeddings',
};
const CORPUS_SIZE = 5_183;
const EMBEDDING_MODEL = 'bench-embedding';
const PROBER = path.join(ROOT, 'bench/indexing/prober.ts');
const STATEMENTS_HOOK = path.join(ROOT, 'bench/indexing/statements-hook.ts');
/** Inside the repository, so that the hook's `import('pg')` resolves to the service's own copy. */
const COMPILED_STATEMENTS_HOOK = path.join(ROOT, 'node_modules/.cache/bench-indexing/statements-hook.mjs');

/**
 * The statements hook as plain JavaScript: the service's parse threads inherit its `--import`,
 * and a worker thread does not get tsx's loader, so the hook cannot be TypeScript there.
 */
function compiledStatementsHook(): string {
  const { outputText } = ts.transpileModule(readFileSync(STATEMENTS_HOOK, 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  mkdirSync(path.dirname(COMPILED_STATEMENTS_HOOK), { recursive: true });
  writeFileSync(COMPILED_STATEMENTS_HOOK, outputText);
  return COMPILED_STATEMENTS_HOOK;
}

/** The issue's targets. */
const TARGETS = {
  /** Lexical only, the whole corpus searchable within (seconds). */
  lexicalSeconds: { postgres: 60, pglite: 120 } satisfies Record<DatabaseName, number>,
  healthP99Ms: 50,
  /** Pipeline time over the time the embedding server was busy. */
  embeddingOverhead: 1.3,
};

/** One way of running the service. */
interface Variant {
  readonly scenario: ScenarioName;
  readonly database: DatabaseName;
  /** 0: one process (API and worker, as `npm start` runs it); N: `--role=api` + N `--role=worker`. */
  readonly workers: number;
}

function layoutLabel(variant: Variant): string {
  const database = DATABASE_LABEL[variant.database];
  return variant.workers === 0 ? database : `${database}, api + ${variant.workers} workers`;
}

function variantLabel(variant: Variant): string {
  return `${SCENARIO_LABEL[variant.scenario]} on ${layoutLabel(variant)}`;
}

function variantSlug(variant: Variant): string {
  return [
    variant.scenario,
    variant.database,
    ...(variant.workers > 0 ? [`${variant.workers}-workers`] : []),
  ].join('-');
}

function plannedVariants(settings: IndexingSettings, databases: readonly DatabaseName[]): Variant[] {
  return settings.scenarios.flatMap((scenario) => [
    ...databases.map((database) => ({ scenario, database, workers: 0 })),
    ...(databases.includes('postgres') && settings.workers > 0
      ? [{ scenario, database: 'postgres' as const, workers: settings.workers }]
      : []),
  ]);
}

interface EmbeddingFigures {
  readonly requests: number;
  readonly texts: number;
  readonly peakConcurrent: number;
  readonly busyMs: number;
  /** Requests that did not answer 200. */
  readonly failedRequests: number;
}

interface Measurement {
  readonly variant: Variant;
  readonly documents: number;
  readonly elapsedMs: number;
  /** When the last upload request was answered, from the first one's start. */
  readonly uploadsAnsweredMs: number;
  readonly uploadLatency: Percentiles;
  readonly jobs: readonly JobOutcome[];
  /** Chunks the jobs report, and rows counted in the database afterwards. */
  readonly chunks: number;
  readonly chunkRows: number | undefined;
  readonly embeddingRows: number | undefined;
  readonly indexedDocuments: number;
  readonly health: Percentiles;
  readonly usage: WindowUsage | undefined;
  readonly embedding: EmbeddingFigures | undefined;
  /** Labels of the service processes, by pid. */
  readonly roles: ReadonlyMap<number, string>;
  /** Requests following the jobs that failed without an answer (and were sent again). */
  readonly pollErrors: readonly string[];
}

function progress(message: string): void {
  process.stderr.write(`[bench:indexing] ${message}\n`);
}

/** Starts a `--role=worker` process and waits for its `service started` log line. */
async function startWorkerProcess(
  name: string,
  env: Readonly<Record<string, string>>,
  nodeArgs: readonly string[],
): Promise<RunningServer> {
  const child = spawnChild(name, process.execPath, [...nodeArgs, SERVICE_ENTRY, '--role=worker'], {
    cwd: ROOT,
    // The start-up line is logged at info; the worker logs nothing else at info while indexing.
    env: { PATH: process.env.PATH ?? '', ...env, LOG_LEVEL: 'info' },
  });
  const stop = deferCleanup(() => child.stop());
  const deadline = Date.now() + 60_000;
  while (!child.output().includes('"msg":"service started"')) {
    if (child.process.exitCode !== null || child.process.signalCode !== null) {
      await stop();
      throw new Error(`${name} exited before it started:\n${child.output()}`);
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${name} did not start within 60 s:\n${child.output()}`);
    }
    await sleep(100);
  }
  return { url: '', child, stop };
}

/** The service processes of one variant: the one that serves HTTP first. */
interface ServiceProcesses {
  readonly api: RunningServer;
  readonly workers: readonly RunningServer[];
  readonly roles: ReadonlyMap<number, string>;
  alive(): boolean;
  stop(): Promise<void>;
}

async function startProcesses(
  variant: Variant,
  env: Record<string, string>,
  settings: IndexingSettings,
  runDir: string | undefined,
): Promise<ServiceProcesses> {
  const slug = variantSlug(variant);
  const nodeArgs: string[] = [];
  if (settings.statementsDir !== undefined) {
    nodeArgs.push('--import', pathToFileURL(compiledStatementsHook()).href);
  }
  if (settings.cpuProfileDir !== undefined && runDir !== undefined) {
    // Node names each profile after its process and thread: the parse threads get their own.
    nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${runDir}`);
  }
  const withOutput = runDir === undefined ? env : { ...env, BENCH_STATEMENTS_OUT: runDir };
  const roles = new Map<number, string>();
  const api = await startService(
    `service (${slug}${variant.workers > 0 ? ', api' : ''})`,
    variant.workers > 0 ? { ...withOutput, ROLE: 'api' } : withOutput,
    nodeArgs,
  );
  const stopApi = deferCleanup(() => api.stop());
  const workers: RunningServer[] = [];
  try {
    for (let index = 0; index < variant.workers; index++) {
      workers.push(await startWorkerProcess(`service (${slug}, worker ${index + 1})`, withOutput, nodeArgs));
    }
  } catch (error) {
    for (const worker of workers) await worker.stop();
    await stopApi();
    throw error;
  }
  const all = [api, ...workers];
  all.forEach((server, index) => {
    const pid = server.child.process.pid;
    if (pid !== undefined)
      roles.set(pid, variant.workers === 0 ? 'service' : index === 0 ? 'api' : `worker ${index}`);
  });
  return {
    api,
    workers,
    roles,
    alive: () =>
      all.every(
        (server) => server.child.process.exitCode === null && server.child.process.signalCode === null,
      ),
    stop: async () => {
      // Workers first: they finish their jobs (there are none left) and hand nothing back.
      for (const worker of workers) await worker.stop();
      await stopApi();
    },
  };
}

interface HealthProber {
  readonly child: Child & { stdout(): string };
  /** Stops the prober and answers its samples. */
  finish(): Promise<ProbeSample[]>;
}

async function startProber(url: string, intervalMs: number): Promise<HealthProber> {
  const child = spawnChild(
    'healthz prober',
    process.execPath,
    ['--import', 'tsx', PROBER, `${url}/healthz`, String(intervalMs)],
    { cwd: ROOT, env: { PATH: process.env.PATH ?? '' }, collectStdout: true },
  );
  const stop = deferCleanup(() => child.stop(2_000));
  const deadline = Date.now() + 30_000;
  while (!child.stdout().startsWith('ready\n')) {
    if (child.process.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`the /healthz prober did not start:\n${child.output()}`);
    }
    await sleep(20);
  }
  return {
    child,
    finish: async () => {
      await stop();
      const line = child.stdout().trim().split('\n').at(-1) ?? '[]';
      return JSON.parse(line) as ProbeSample[];
    },
  };
}

async function countPostgresRows(url: string): Promise<{ chunks: number; embeddings: number }> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  client.on('error', () => {});
  await client.connect();
  try {
    return await countRows((text) => client.query(text));
  } finally {
    await client.end();
  }
}

/** PGlite serves one process: its rows are counted once the service has stopped. */
async function countPgliteRows(dataDir: string): Promise<{ chunks: number; embeddings: number }> {
  const client = await PGlite.create(path.join(dataDir, 'pglite'), { extensions: { vector } });
  try {
    return await countRows((text) => client.query(text));
  } finally {
    await client.close();
  }
}

async function countRows(
  query: (text: string) => Promise<{ rows: unknown[] }>,
): Promise<{ chunks: number; embeddings: number }> {
  const { rows } = await query(
    `SELECT (SELECT count(*) FROM chunks WHERE search IS NOT NULL) AS chunks,
            (SELECT count(*) FROM chunk_embeddings) AS embeddings`,
  );
  const row = (rows[0] ?? {}) as { chunks?: unknown; embeddings?: unknown };
  return { chunks: Number(row.chunks), embeddings: Number(row.embeddings) };
}

/** Runs one variant on a fresh database and answers its figures. */
async function benchVariant(
  settings: IndexingSettings,
  variant: Variant,
  postgresUrl: string,
  corpus: readonly UploadDocument[],
): Promise<Measurement> {
  const label = variantLabel(variant);
  const env: Record<string, string> = { LOG_LEVEL: 'warn' };
  const releases: (() => Promise<void>)[] = [];
  let dataDir: string | undefined;
  let postgres: { url: string; name: string } | undefined;
  if (variant.database === 'pglite') {
    const directory = mkdtempSync(path.join(os.tmpdir(), 'bench-indexing-'));
    dataDir = directory;
    releases.push(deferCleanup(() => rmSync(directory, { recursive: true, force: true })));
    env.DATA_DIR = directory;
  } else {
    const scratch = await createScratchDatabase(postgresUrl, 'bench_indexing');
    releases.push(
      deferCleanup(async () => {
        await scratch.drop();
        progress(`${label}: dropped database ${scratch.name}`);
      }),
    );
    progress(`${label}: created database ${scratch.name}`);
    postgres = { url: scratch.url, name: scratch.name };
    env.DATABASE_URL = scratch.url;
    env.ENCRYPTION_KEY = randomBytes(32).toString('hex');
  }
  let fake: FakeOpenAiServer | undefined;
  if (variant.scenario === 'embeddings') {
    const server = await FakeOpenAiServer.start({
      dimensions: settings.dimensions,
      delayMsPerRequest: settings.embeddingDelayMs,
    });
    fake = server;
    releases.push(deferCleanup(() => server.close()));
    Object.assign(env, {
      EMBEDDING_PROVIDER: 'openai',
      EMBEDDING_BASE_URL: server.baseUrl,
      EMBEDDING_MODEL,
    });
  }
  let runDir: string | undefined;
  const diagnostics = settings.cpuProfileDir ?? settings.statementsDir;
  if (diagnostics !== undefined) {
    runDir = path.resolve(diagnostics, variantSlug(variant));
    rmSync(runDir, { recursive: true, force: true });
    mkdirSync(runDir, { recursive: true });
  }
  try {
    progress(`${label}: starting the service`);
    const processes = await startProcesses(variant, env, settings, runDir);
    let measurement: Measurement;
    try {
      measurement = await measure(settings, variant, processes, corpus, fake, postgresUrl, postgres, runDir);
    } finally {
      await processes.stop();
      progress(`${label}: service stopped`);
    }
    if (dataDir !== undefined) {
      const rows = await countPgliteRows(dataDir);
      progress(`${label}: PGlite folder ${formatNumber(directorySize(dataDir) / 2 ** 20)} MiB`);
      measurement = { ...measurement, chunkRows: rows.chunks, embeddingRows: rows.embeddings };
    }
    if (runDir !== undefined) summariseDiagnostics(label, runDir, measurement.documents);
    return measurement;
  } finally {
    for (const release of releases.reverse()) await release();
  }
}

async function measure(
  settings: IndexingSettings,
  variant: Variant,
  processes: ServiceProcesses,
  corpus: readonly UploadDocument[],
  fake: FakeOpenAiServer | undefined,
  adminUrl: string,
  postgres: { url: string; name: string } | undefined,
  runDir: string | undefined,
): Promise<Measurement> {
  const label = variantLabel(variant);
  const baseUrl = processes.api.url;
  const slug = variantSlug(variant);
  const { headers } = await registerUser(baseUrl, `indexing-${slug}`);

  // The worker starts after the HTTP server answers: let it settle (on embeddings, its probe of
  // the model's dimension and the catch-up job) before the clock starts.
  if (fake !== undefined) {
    const deadline = Date.now() + 30_000;
    while (fake.requests.length === 0 && Date.now() < deadline) await sleep(50);
    if (fake.requests.length === 0) throw new Error('the service never called the embedding server');
  }
  await sleep(2_000);
  fake?.clearRecords();

  const { bodies, sizes } = uploadBatches(corpus, settings.batchSize);

  const prober = await startProber(baseUrl, settings.probeIntervalMs);
  const servicePids = [...processes.roles.keys()];
  const sampler = cpuAccountingAvailable()
    ? new ProcessSampler({
        servicePids,
        helperPids: () => (prober.child.process.pid === undefined ? [] : [prober.child.process.pid]),
        ...(postgres === undefined ? {} : { postgres: { adminUrl, database: postgres.name } }),
      })
    : undefined;
  await sampler?.start();
  progress(
    `${label}: uploading ${formatNumber(corpus.length)} documents in ${bodies.length} requests, ${settings.inFlight} in flight`,
  );
  let outcome: UploadOutcome;
  let usage: WindowUsage | undefined;
  let samples: ProbeSample[];
  let embedding: EmbeddingFigures | undefined;
  try {
    outcome = await uploadAndWait(baseUrl, headers, bodies, sizes, {
      inFlight: settings.inFlight,
      timeoutSeconds: settings.timeoutSeconds,
      alive: processes.alive,
      progress,
    });
  } finally {
    usage = await sampler?.stop();
    if (fake !== undefined) {
      const requests = fake.requests.filter((request) => request.route === 'POST /v1/embeddings');
      embedding = {
        requests: requests.length,
        texts: requests.reduce((sum, request) => sum + request.inputCount, 0),
        peakConcurrent: fake.peakConcurrentRequests(),
        busyMs: fake.busyMs(),
        failedRequests: requests.filter((request) => request.status !== 200).length,
      };
    }
    samples = await prober.finish();
  }
  const endMs = Math.max(...outcome.jobs.map((job) => job.finishedAtMs));
  const elapsedMs = endMs - outcome.startedAtMs;
  if (runDir !== undefined) {
    // For diagnostics: every probe, in seconds from the first upload, and each job's finish.
    writeFileSync(
      path.join(runDir, 'timeline.json'),
      `${JSON.stringify({
        probes: samples.map(([sentAt, latency, ok]) => [
          Math.round(sentAt - outcome.startedAtMs) / 1000,
          Math.round(latency * 10) / 10,
          ok,
        ]),
        jobsFinished: outcome.jobs.map((job) => Math.round(job.finishedAtMs - outcome.startedAtMs) / 1000),
      })}\n`,
    );
  }
  const inWindow = samples.filter(([sentAt]) => sentAt >= outcome.startedAtMs && sentAt <= endMs);
  const health = summarise(
    inWindow.map(([, latency]) => latency),
    inWindow.filter(([, , ok]) => ok === 0).length,
  );

  const listed = (await expectJson([200], 'GET', `${baseUrl}/v1/documents?limit=1`, undefined, headers)) as {
    total?: number;
  };
  const rows = postgres === undefined ? undefined : await countPostgresRows(postgres.url);
  const chunks = outcome.jobs.reduce((sum, job) => sum + job.chunks, 0);
  const measurement: Measurement = {
    variant,
    documents: corpus.length,
    elapsedMs,
    uploadsAnsweredMs: outcome.uploadsAnsweredMs,
    uploadLatency: summarise(outcome.uploadLatencies, 0),
    jobs: outcome.jobs,
    chunks,
    chunkRows: rows?.chunks,
    embeddingRows: rows?.embeddings,
    indexedDocuments: Number(listed.total ?? 0),
    health,
    usage,
    embedding,
    roles: processes.roles,
    pollErrors: outcome.pollErrors,
  };
  progress(`${label}: ${describe(measurement)}`);
  const firstFinish = Math.min(...outcome.jobs.map((job) => job.finishedAtMs));
  progress(
    `${label}: uploads answered after ${(outcome.uploadsAnsweredMs / 1000).toFixed(1)} s (p50 ${outcome.uploadLatencies.length === 0 ? '–' : measurement.uploadLatency.p50.toFixed(0)} ms, max ${measurement.uploadLatency.max.toFixed(0)} ms per request); first job finished after ${((firstFinish - outcome.startedAtMs) / 1000).toFixed(1)} s`,
  );
  if (usage !== undefined) {
    const byRole = [...usage.serviceCpuByPid]
      .map(([pid, seconds]) => `${processes.roles.get(pid) ?? pid} ${seconds.toFixed(1)} s`)
      .join(', ');
    progress(
      `${label}: CPU ${byRole}${usage.databaseCpuSeconds === undefined ? '' : `, PostgreSQL backends ${usage.databaseCpuSeconds.toFixed(1)} s (up to ${usage.peakBackends} backends)`}, other load ${usage.otherCores?.toFixed(2) ?? 'n/a'} cores`,
    );
  }
  for (const job of outcome.jobs) {
    for (const problem of job.problems.slice(0, 5)) progress(`${label}: ${problem}`);
  }
  return measurement;
}

function seconds(ms: number): number {
  return ms / 1000;
}

function describe(measurement: Measurement): string {
  const { health } = measurement;
  const failed = measurement.jobs.reduce((sum, job) => sum + job.failed + job.skipped, 0);
  const embedding =
    measurement.embedding === undefined
      ? ''
      : `, ${measurement.embedding.requests} embedding requests of ${(measurement.embedding.texts / Math.max(1, measurement.embedding.requests)).toFixed(1)} texts, pipeline / busy ${(measurement.elapsedMs / measurement.embedding.busyMs).toFixed(2)}×`;
  return `${formatNumber(measurement.documents)} documents, ${formatNumber(measurement.chunks)} chunks in ${seconds(measurement.elapsedMs).toFixed(1)} s (${formatNumber(measurement.documents / seconds(measurement.elapsedMs))} docs/s, ${formatNumber(measurement.chunks / seconds(measurement.elapsedMs))} chunks/s), ${failed} not indexed; /healthz p50 ${health.p50.toFixed(1)} ms, p99 ${health.p99.toFixed(1)} ms, max ${health.max.toFixed(0)} ms over ${health.count} probes (${health.failed} failed)${embedding}`;
}

/** Prints, per process, the statements the service ran, and where the CPU profiles are. */
function summariseDiagnostics(label: string, runDir: string, documents: number): void {
  for (const file of readdirSync(runDir)) {
    if (file.endsWith('.cpuprofile')) continue;
    if (!file.startsWith('statements-')) continue;
    const report = JSON.parse(readFileSync(path.join(runDir, file), 'utf8')) as StatementReport;
    const total = report.statements.reduce((sum, statement) => sum + statement.count, 0);
    const totalMs = report.statements.reduce((sum, statement) => sum + statement.totalMs, 0);
    progress(
      `${label}: process ${report.pid} (${report.argv.join(' ') || 'all roles'}): event loop delay p50 ${report.eventLoopDelayMs.p50} ms, p99 ${report.eventLoopDelayMs.p99} ms, max ${report.eventLoopDelayMs.max} ms over its life; ran ${formatNumber(total)} statements (${(total / documents).toFixed(1)} per document) in ${(totalMs / 1000).toFixed(1)} s:`,
    );
    for (const statement of report.statements.slice(0, 15)) {
      progress(
        `  ${formatNumber(statement.count).padStart(8)} × ${(statement.totalMs / Math.max(1, statement.count)).toFixed(2).padStart(7)} ms = ${(statement.totalMs / 1000).toFixed(1).padStart(6)} s, longest ${formatNumber(statement.maxMs).padStart(5)} ms  ${statement.sql.slice(0, 100)}`,
      );
    }
  }
  const profiles = readdirSync(runDir).filter((file) => file.endsWith('.cpuprofile'));
  if (profiles.length > 0) progress(`${label}: ${profiles.length} CPU profile(s) in ${runDir}`);
}

interface TargetCheck {
  readonly measurement: Measurement;
  readonly met: boolean;
  readonly text: string;
}

function checkTargets(
  measurement: Measurement,
  fullCorpus: boolean,
  lexical: ReadonlyMap<string, Measurement>,
): TargetCheck {
  const { variant } = measurement;
  const parts: string[] = [];
  let met = true;
  const notIndexed = measurement.jobs.reduce((sum, job) => sum + job.failed + job.skipped, 0);
  const elapsed = seconds(measurement.elapsedMs);
  if (variant.scenario === 'lexical') {
    const limit = TARGETS.lexicalSeconds[variant.database];
    if (fullCorpus) {
      const ok = elapsed <= limit && notIndexed === 0;
      met &&= ok;
      parts.push(
        `whole corpus searchable in ${elapsed.toFixed(1)} s with ${notIndexed} documents not indexed (target ≤ ${limit} s, none missing) ${ok ? '✓' : '✗'}`,
      );
    } else {
      parts.push(
        `${formatNumber(measurement.documents)} documents searchable in ${elapsed.toFixed(1)} s (the ≤ ${limit} s target is for the whole corpus: not checked)`,
      );
    }
  }
  const healthOk = measurement.health.p99 <= TARGETS.healthP99Ms && measurement.health.failed === 0;
  met &&= healthOk;
  parts.push(
    `/healthz p99 ${measurement.health.p99.toFixed(1)} ms, ${measurement.health.failed} failed (target ≤ ${TARGETS.healthP99Ms} ms, none failed) ${healthOk ? '✓' : '✗'}`,
  );
  if (measurement.embedding !== undefined) {
    const ratio = measurement.elapsedMs / measurement.embedding.busyMs;
    const ok = ratio <= TARGETS.embeddingOverhead;
    met &&= ok;
    parts.push(
      `pipeline time ${ratio.toFixed(2)}× the embedding server's busy time (target ≤ ${TARGETS.embeddingOverhead}×) ${ok ? '✓' : '✗'}`,
    );
    const baseline = lexical.get(layoutLabel(variant));
    if (baseline !== undefined) {
      parts.push(
        `${(measurement.elapsedMs / baseline.elapsedMs).toFixed(2)}× the lexical-only time on the same set-up`,
      );
    }
  }
  return {
    measurement,
    met,
    text: `${variantLabel(variant)}: **${met ? 'met' : 'not met'}**: ${parts.join('; ')}`,
  };
}

function mib(bytes: number | undefined): string {
  return bytes === undefined ? 'n/a' : formatNumber(bytes / 2 ** 20);
}

/** Peak RSS per process: `412` for one, `api 150 / workers 380, 371` for several. */
function memoryCell(measurement: Measurement): string {
  const usage = measurement.usage;
  if (usage === undefined) return 'n/a';
  const entries = [...measurement.roles].map(([pid, role]) => ({ role, peak: usage.peakRssByPid.get(pid) }));
  if (entries.length === 1) return mib(entries[0]?.peak);
  const api = entries.find((entry) => entry.role === 'api');
  const workers = entries.filter((entry) => entry.role !== 'api');
  return `api ${mib(api?.peak)} / workers ${workers.map((entry) => mib(entry.peak)).join(', ')}`;
}

function startMemoryCell(measurement: Measurement): string {
  const usage = measurement.usage;
  if (usage === undefined) return 'n/a';
  const values = [...measurement.roles.keys()].map((pid) => mib(usage.startRssByPid.get(pid)));
  return values.join(' / ');
}

interface RunContext {
  readonly settings: IndexingSettings;
  readonly postgresUrl: string;
  readonly postgresVersion: string | undefined;
  readonly startedAt: Date;
  readonly tookSeconds: number;
  readonly corpusSize: number;
}

function report(
  context: RunContext,
  measurements: readonly Measurement[],
  skipped: AvailableDatabases['skipped'],
): { markdown: string; checks: TargetCheck[] } {
  const { settings } = context;
  const documents = measurements[0]?.documents ?? Math.min(settings.limit ?? CORPUS_SIZE, context.corpusSize);
  const fullCorpus = documents === context.corpusSize;
  const lexical = new Map<string, Measurement>();
  for (const measurement of measurements) {
    if (measurement.variant.scenario === 'lexical')
      lexical.set(layoutLabel(measurement.variant), measurement);
  }
  const checks = measurements.map((measurement) => checkTargets(measurement, fullCorpus, lexical));
  const rows = measurements.map((measurement, index) => {
    const elapsed = seconds(measurement.elapsedMs);
    const notIndexed = measurement.jobs.reduce((sum, job) => sum + job.failed + job.skipped, 0);
    const { usage, health } = measurement;
    return [
      SCENARIO_LABEL[measurement.variant.scenario],
      layoutLabel(measurement.variant),
      elapsed.toFixed(1),
      formatNumber(measurement.documents / elapsed),
      formatNumber(measurement.chunks / elapsed),
      String(notIndexed),
      seconds(measurement.uploadsAnsweredMs).toFixed(1),
      `${health.p50.toFixed(1)} / ${health.p99.toFixed(1)} / ${health.max.toFixed(0)}`,
      usage === undefined ? 'n/a' : usage.serviceCpuSeconds.toFixed(1),
      usage?.databaseCpuSeconds === undefined ? '–' : usage.databaseCpuSeconds.toFixed(1),
      usage?.otherCores === undefined ? 'n/a' : usage.otherCores.toFixed(2),
      startMemoryCell(measurement),
      memoryCell(measurement),
      checks[index]?.met === true ? 'met' : '**not met**',
    ];
  });
  const table = markdownTable(
    [
      'Scenario',
      'Database',
      'seconds',
      'docs/s',
      'chunks/s',
      'not indexed',
      'uploads answered (s)',
      '/healthz p50 / p99 / max ms',
      'service CPU s',
      'PostgreSQL CPU s',
      'other load (cores)',
      'RSS at start MiB',
      'peak RSS MiB',
      'Target',
    ],
    rows,
    ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'l'],
  );
  const embedded = measurements.filter((measurement) => measurement.embedding !== undefined);
  const embeddingTable =
    embedded.length === 0
      ? []
      : [
          '',
          markdownTable(
            [
              'Database',
              'requests',
              'texts / request',
              'most in flight',
              'server busy s',
              'pipeline / busy',
              'vs lexical only',
            ],
            embedded.map((measurement) => {
              const figures = measurement.embedding as EmbeddingFigures;
              const baseline = lexical.get(layoutLabel(measurement.variant));
              return [
                layoutLabel(measurement.variant),
                formatNumber(figures.requests),
                (figures.texts / Math.max(1, figures.requests)).toFixed(1),
                String(figures.peakConcurrent),
                seconds(figures.busyMs).toFixed(1),
                `${(measurement.elapsedMs / figures.busyMs).toFixed(2)}×`,
                baseline === undefined ? '–' : `${(measurement.elapsedMs / baseline.elapsedMs).toFixed(2)}×`,
              ];
            }),
            ['l', 'r', 'r', 'r', 'r', 'r', 'r'],
          ),
        ];
  const chunkCounts = [...new Set(measurements.map((measurement) => measurement.chunks))];
  const rowChecks = measurements.filter(
    (measurement) =>
      (measurement.chunkRows !== undefined && measurement.chunkRows !== measurement.chunks) ||
      (measurement.embedding !== undefined && measurement.embeddingRows !== measurement.chunks),
  );
  const split = measurements.find((measurement) => measurement.variant.workers > 0)?.variant.workers;
  const cores = os.cpus().length;
  const lines = [
    '## Indexing: the SciFact corpus through the upload API (`bench/indexing`)',
    '',
    `Run ${context.startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC on ${environmentLine()}.`,
    `Command: \`${commandLine('bench:indexing', 'bench/indexing/run.ts')}\`; took ${Math.round(context.tookSeconds)} s.`,
    ...(context.postgresVersion === undefined
      ? []
      : [`PostgreSQL ${context.postgresVersion} at ${postgresHost(context.postgresUrl)}.`]),
    '',
    `${fullCorpus ? 'The whole corpus' : `The first ${formatNumber(documents)} of the ${formatNumber(context.corpusSize)} documents`} of BEIR SciFact (abstracts with their titles; ${chunkCounts.length === 1 ? `${formatNumber(chunkCounts[0] ?? 0)} chunks` : `${chunkCounts.map((count) => formatNumber(count)).join(' or ')} chunks`}) is uploaded as JSON`,
    `documents to \`POST /v1/documents\`, ${settings.batchSize} a request with ${settings.inFlight} requests in flight, as a client would; the`,
    'service runs as users run it (`node dist/src/main.js`, `LOG_LEVEL=warn`, default settings: 2 index jobs at',
    `a time, 4 files at a time per job, ${Math.max(1, Math.min(4, cores - 1))} parse thread(s) here) on a fresh database: PGlite in a new temporary \`DATA_DIR\`,`,
    'PostgreSQL in a new database with the default pool of 10. `seconds` runs from the first upload request',
    'to the `finished_at` of the last job (`GET /v1/documents/jobs/{id}`, followed meanwhile); by then every',
    "document's chunks are stored with their full-text index (and vectors). `not indexed` counts documents whose",
    'job answered skipped or failed. `uploads answered` is when the last upload request got its 202.',
    `\`/healthz\` latency comes from a prober in a process of its own sending one request every ${settings.probeIntervalMs} ms on a`,
    'fixed schedule during that time, measured from when each was due. CPU is user + system time from /proc over',
    "the same time: the service process(es), parse threads included, and the PostgreSQL backends on the benchmark's",
    'database; `other load` is the rest of the machine, less this script and its prober. `peak RSS` is each',
    "service process's VmHWM (its high-water mark since it started) once indexing is done.",
    ...(embedded.length === 0
      ? []
      : [
          '',
          `With embeddings, \`EMBEDDING_PROVIDER=openai\` points at a fake OpenAI-compatible server in the benchmark's process`,
          `(\`test/fakes/fake-openai-server.ts\`) that answers every request after ${settings.embeddingDelayMs} ms with ${settings.dimensions}-dimension vectors; the`,
          'service sends up to 64 texts a request, 2 requests at a time (`EMBEDDING_BATCH_SIZE`, `EMBEDDING_CONCURRENCY`).',
          '`server busy` is the time during which that server had at least one request in hand; `pipeline / busy`',
          'divides `seconds` by it; `vs lexical only` divides `seconds` by the lexical-only row on the same set-up.',
          'A `pipeline / busy` near 1 says the server always had a request in hand, not that the requests were full:',
          'compare `texts / request` with the 64 a request may carry. The default delay, 300 ms for up to 64 texts, is in',
          "the range of a hosted embedding API or a small model on a CPU server; with much faster servers the pipeline's",
          'database work, not the embedding server, sets the pace, and the ratio says nothing about overhead.',
          'On PGlite each vector stored costs about 3.3 ms of the one thread (pgvector HNSW insert in WebAssembly,',
          'measured alone at 384 dimensions), whatever the embedding server does: that, not waiting, is its extra time.',
        ]),
    ...(split === undefined
      ? []
      : [
          '',
          `\`api + ${split} workers\` runs the same service as one \`--role=api\` process that takes the uploads and answers`,
          `/healthz, and ${split} \`--role=worker\` processes that index, each with its own pool and parse threads, on the`,
          `same ${cores} cores; the workers run at the niceness they give themselves by default (\`WORKER_NICENESS\` 10).`,
        ]),
    '',
    table,
    ...embeddingTable,
    ...measurements.flatMap((measurement) =>
      measurement.pollErrors.length === 0
        ? []
        : [
            '',
            `${variantLabel(measurement.variant)}: ${measurement.pollErrors.length} request(s) following the jobs failed without an answer and were sent again (${[...new Set(measurement.pollErrors)].join('; ')}).`,
          ],
    ),
    ...(rowChecks.length === 0
      ? []
      : [
          '',
          ...rowChecks.map(
            (measurement) =>
              `${variantLabel(measurement.variant)}: the jobs report ${formatNumber(measurement.chunks)} chunks but the database holds ${measurement.chunkRows ?? 'n/a'} chunk rows and ${measurement.embeddingRows ?? 'n/a'} vectors.`,
          ),
        ]),
    '',
    `Targets (issue): lexical only, the whole corpus searchable in ≤ ${TARGETS.lexicalSeconds.postgres} s on PostgreSQL and ≤ ${TARGETS.lexicalSeconds.pglite} s on`,
    `PGlite; /healthz p99 ≤ ${TARGETS.healthP99Ms} ms while indexing; with embeddings, the pipeline takes ≤ ${TARGETS.embeddingOverhead}× the time the embedding`,
    'server is busy.',
    '',
    ...verdictLines(checks, skipped),
  ];
  return { markdown: lines.join('\n'), checks };
}

async function main(): Promise<void> {
  const settings = parseIndexingSettings(process.argv.slice(2), process.env);
  const startedAt = new Date();
  const corpusSection = settings.sections.includes('corpus');
  const readsSection = settings.sections.includes('reads');
  const available = await availableDatabases(settings.databases, progress);
  const { databases, skipped, postgresVersion, adminUrl: postgresUrl } = available;
  const variants = corpusSection ? plannedVariants(settings, databases) : [];
  // Each run: start-up, the indexing (bounded by --timeout), counting and clean-up.
  const deadlineMs =
    (variants.length * (settings.timeoutSeconds + 120) +
      (readsSection ? readsDeadlineSeconds(settings, databases.length) : 0) +
      300) *
    1000;
  const uninstall = installCleanupHandlers(deadlineMs);
  try {
    if (settings.build) {
      progress('npm run build');
      await buildService();
    }
    if (corpusSection) {
      const corpusAll = scifactUploads(loadScifactCorpus(settings.datasetDir));
      const corpus = corpusAll.slice(0, settings.limit ?? corpusAll.length);
      const measurements: Measurement[] = [];
      for (const variant of variants)
        measurements.push(await benchVariant(settings, variant, postgresUrl, corpus));
      const context: RunContext = {
        settings,
        postgresUrl,
        postgresVersion,
        startedAt,
        tookSeconds: (Date.now() - startedAt.getTime()) / 1000,
        corpusSize: corpusAll.length,
      };
      publishSection(
        'indexing',
        report(context, measurements, skipped),
        {
          write: settings.write,
          withheld:
            settings.cpuProfileDir !== undefined || settings.statementsDir !== undefined
              ? 'diagnostics on (--cpu-prof / --statements)'
              : undefined,
        },
        progress,
      );
    }
    if (readsSection) await runReadsSection(settings, available);
  } finally {
    await runCleanups();
    uninstall();
  }
}

runBenchmark('indexing', main);

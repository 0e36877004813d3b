// `npm run bench:indexing -- --section=reads`: does the service keep answering reads while it
// indexes a big file and a corpus, and does its data folder shrink back once the documents are
// deleted? Per database, on one service process started as users start it:
//   1. a seed of SciFact abstracts is indexed (so that searches find something);
//   2. idle: for --idle-seconds, a search, a job-status request and a /healthz probe every 250 ms
//      each, from a prober process of its own (bench/indexing/reads-prober.ts);
//   3. big file: a ~30 MiB Markdown file as one multipart upload (`curl -F file=@big.md`), the
//      202 timed, the probes going on until its job has finished;
//   4. idle again, for as long as the first idle phase, with the big file's chunks: what searches
//      cost without writes on the index the big file's phase ends with (its base);
//   5. SciFact: the whole corpus through the JSON upload, probes going on until its jobs finished;
//   6. idle again, on the grown index (the SciFact phase's base);
//   7. PGlite only: every document but the seed deleted through the API; once the service logs
//      its vacuum after them (and the checkpoint after that), the service stopped cleanly and
//      started again on the same DATA_DIR; the folder's size at each step.
// Resident memory of the service (with any child processes) is sampled every 200 ms throughout.
// Writes the `indexing-reads` section of docs/benchmarks.md.
import type { Dirent } from 'node:fs';
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  CHECKPOINT_MESSAGE,
  STARTUP_VACUUM_MESSAGE,
  VACUUMED_AFTER_DELETES_MESSAGE,
} from '../../src/db/storage-maintenance.js';
import { type Child, deferCleanup, spawnChild } from '../lib/children.js';
import { cpuAccountingAvailable } from '../lib/cpu.js';
import {
  type AvailableDatabases,
  type BenchDatabase,
  type Check,
  createBenchDatabase,
  DATABASE_LABEL,
  type DatabaseName,
  postgresLine,
  verdictLines,
} from '../lib/databases.js';
import { ROOT } from '../lib/paths.js';
import { childPids } from '../lib/processes.js';
import { commandLine, environmentLine, formatNumber, markdownTable, publishSection } from '../lib/report.js';
import { loadScifact } from '../lib/scifact.js';
import { type RunningServer, SERVICE_ENTRY, startServer } from '../lib/service.js';
import { type Percentiles, sleep, summarise } from '../lib/stats.js';
import { scifactUploads, type UploadDocument, uploadBatches } from '../lib/upload.js';
import { registerUser } from '../lib/users.js';
import { type BigMarkdown, buildBigMarkdown } from './big-markdown.js';
import type { IndexingSettings } from './options.js';
import type { ReadSample, ReadsProberConfig } from './reads-prober.js';
import { ProcessSampler, readMemory, type WindowUsage } from './sampler.js';

const PROBER = path.join(ROOT, 'bench/indexing/reads-prober.ts');
const MIB = 2 ** 20;
const SEED_PREFIX = 'seed-';
/** A request that has waited this long is given up on by the prober (and counts as failed). */
const REQUEST_TIMEOUT_MS = 120_000;

/** The issue's targets. */
export const READS_TARGETS = {
  pglite: { searchP99Ms: 1_000, searchVsIdle: 10, slowRequestMs: 2_000 },
  postgres: { searchVsIdle: 3 },
  /** The 202 of a 30 MiB multipart upload. */
  acceptedMs: 2_000,
  /** The size the 202 and memory targets are for. */
  bigFileMiB: 30,
  /** Peak resident memory while the big file is indexed, over the idle size. */
  memoryOverIdleMiB: 500,
  healthP99Ms: 50,
  /** The data folder after deleting the uploads and a restart, over its size before them. */
  diskRatio: 1.5,
} as const;

type PhaseName = 'idle' | 'big' | 'idle-between' | 'scifact' | 'idle-after';
const PHASE_LABEL: Record<PhaseName, string> = {
  idle: 'idle',
  big: 'big Markdown file',
  'idle-between': 'idle, after the big file',
  scifact: 'SciFact corpus',
  'idle-after': 'idle, after indexing',
};
const KINDS = ['search', 'job status', '/healthz'] as const;

function progress(message: string): void {
  process.stderr.write(`[bench:indexing reads] ${message}\n`);
}

// ---------------------------------------------------------------------------------------------
// Measuring tools: resident memory, folder sizes, the prober

/** Resident memory of the service process and its descendants, every `intervalMs`. */
class MemorySampler {
  /** `[epochMs, bytes]`. */
  readonly samples: [number, number][] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly pid: number,
    private readonly intervalMs = 200,
  ) {}

  start(): void {
    this.sample();
    this.timer = setInterval(() => this.sample(), this.intervalMs);
  }

  stop(): void {
    clearInterval(this.timer);
    this.sample();
  }

  /** VmHWM of the service process: the most it has been resident since it started. */
  highWaterMark(): number | undefined {
    return readMemory(this.pid)?.peak;
  }

  private sample(): void {
    let total = 0;
    let seen = false;
    for (const pid of [this.pid, ...descendants(this.pid)]) {
      const memory = readMemory(pid);
      if (memory === undefined) continue;
      total += memory.rss;
      seen = true;
    }
    if (seen) this.samples.push([Date.now(), total]);
  }

  /** The median and the largest sample between two instants. */
  window(startMs: number, endMs: number): { median: number; max: number } | undefined {
    const values = this.samples
      .filter(([at]) => at >= startMs && at <= endMs)
      .map(([, bytes]) => bytes)
      .sort((a, b) => a - b);
    if (values.length === 0) return undefined;
    return { median: values[Math.floor(values.length / 2)] ?? 0, max: values.at(-1) ?? 0 };
  }
}

function descendants(pid: number): number[] {
  const found: number[] = [];
  for (const child of childPids(pid)) found.push(child, ...descendants(child));
  return found;
}

/** A line the service logged about its storage maintenance. */
interface MaintenanceLine {
  readonly message: string;
  /** When it was logged (epoch ms). */
  readonly at: number;
  /** When the work it reports began (epoch ms): `at` less its `durationMs`, if it has one. */
  readonly began: number;
}

const MAINTENANCE_MESSAGES: ReadonlySet<string> = new Set([
  STARTUP_VACUUM_MESSAGE,
  VACUUMED_AFTER_DELETES_MESSAGE,
  CHECKPOINT_MESSAGE,
]);

/**
 * The service's log lines about its storage maintenance (at `info`), from those still in its
 * output's tail on: what the benchmark waits for before it measures the data folder, instead of
 * a fixed time that a slower machine outlasts.
 */
class MaintenanceLog {
  private readonly lines: MaintenanceLine[] = [];
  private readonly unsubscribe: () => void;

  constructor(child: Child) {
    // The tail's last piece is a line not yet ended, which the listener gets whole.
    for (const line of child.output().split('\n').slice(0, -1)) this.take(line);
    this.unsubscribe = child.onLine((line) => this.take(line));
  }

  has(message: string): boolean {
    return this.lines.some((line) => line.message === message);
  }

  /** The first line that matches, once logged; undefined if none is within `timeoutMs`. */
  async waitFor(
    matches: (line: MaintenanceLine) => boolean,
    timeoutMs: number,
  ): Promise<MaintenanceLine | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.lines.find(matches);
      if (found !== undefined || Date.now() > deadline) return found;
      await sleep(250);
    }
  }

  close(): void {
    this.unsubscribe();
  }

  private take(line: string): void {
    if (!line.startsWith('{')) return;
    let parsed: { msg?: unknown; time?: unknown; durationMs?: unknown };
    try {
      parsed = JSON.parse(line) as typeof parsed;
    } catch {
      return;
    }
    if (typeof parsed.msg !== 'string' || !MAINTENANCE_MESSAGES.has(parsed.msg)) return;
    // The service logs ISO times; a line without one is dated as it is read.
    const logged = typeof parsed.time === 'string' ? Date.parse(parsed.time) : Number.NaN;
    const at = Number.isFinite(logged) ? logged : Date.now();
    const duration = typeof parsed.durationMs === 'number' ? parsed.durationMs : 0;
    this.lines.push({ message: parsed.msg, at, began: at - duration });
  }
}

/** How long a vacuum after deletes may take to be logged before the folder is measured anyway. */
const MAINTENANCE_TIMEOUT_MS = 600_000;

/** The service's vacuum after deletes and the checkpoint after it, from its log. */
interface MaintenanceAfterDeletes {
  /** From the instant given to the vacuum's line; undefined if none came within the time-out. */
  readonly vacuumedAfterSeconds: number | undefined;
  /** What the vacuum itself took. */
  readonly vacuumSeconds: number | undefined;
  /** From the instant given to the checkpoint's line after the vacuum. */
  readonly checkpointedAfterSeconds: number | undefined;
}

/** Waits for a vacuum after deletes begun at `since` or later, then for the checkpoint after it. */
async function waitForVacuumAfter(log: MaintenanceLog, since: number): Promise<MaintenanceAfterDeletes> {
  const vacuum = await log.waitFor(
    (line) => line.message === VACUUMED_AFTER_DELETES_MESSAGE && line.began >= since,
    MAINTENANCE_TIMEOUT_MS,
  );
  if (vacuum === undefined) {
    return { vacuumedAfterSeconds: undefined, vacuumSeconds: undefined, checkpointedAfterSeconds: undefined };
  }
  const checkpoint = await log.waitFor(
    (line) => line.message === CHECKPOINT_MESSAGE && line.at >= vacuum.at,
    MAINTENANCE_TIMEOUT_MS,
  );
  return {
    vacuumedAfterSeconds: (vacuum.at - since) / 1000,
    vacuumSeconds: (vacuum.at - vacuum.began) / 1000,
    checkpointedAfterSeconds: checkpoint === undefined ? undefined : (checkpoint.at - since) / 1000,
  };
}

function failedDeletesLine(failed: readonly string[] | undefined): string {
  if (failed === undefined || failed.length === 0) return '';
  return `: ${failed
    .slice(0, 3)
    .map((answer) => `\`${answer.replaceAll('`', "'")}\``)
    .join(', ')}`;
}

function sentence(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** `which` names the vacuum: "after the deletes", or "again" for one a start took up. */
function describeMaintenance(maintenance: MaintenanceAfterDeletes, which = 'after the deletes'): string {
  if (maintenance.vacuumedAfterSeconds === undefined) {
    return `the service logged no vacuum ${which} within ${MAINTENANCE_TIMEOUT_MS / 1000} s`;
  }
  const checkpoint =
    maintenance.checkpointedAfterSeconds === undefined
      ? 'no checkpoint after it'
      : `its checkpoint at ${maintenance.checkpointedAfterSeconds.toFixed(1)} s`;
  return `the service logged its vacuum ${which} ${maintenance.vacuumedAfterSeconds.toFixed(1)} s after the last (the vacuum took ${maintenance.vacuumSeconds?.toFixed(1)} s), ${checkpoint}`;
}

/** Bytes under a folder; files that vanish while it is walked (recycled WAL segments) are skipped. */
function folderBytes(directory: string): number {
  let entries: Dirent[];
  try {
    entries = readdirSync(directory, { withFileTypes: true });
  } catch {
    return 0;
  }
  let total = 0;
  for (const entry of entries) {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) total += folderBytes(full);
    else {
      try {
        total += statSync(full).size;
      } catch {
        // Removed or renamed meanwhile.
      }
    }
  }
  return total;
}

interface FolderSize {
  readonly total: number;
  readonly wal: number;
  readonly base: number;
}

/** DATA_DIR's size, with PGlite's pg_wal and base (the tables) apart. */
function dataDirSize(dataDir: string): FolderSize {
  return {
    total: folderBytes(dataDir),
    wal: folderBytes(path.join(dataDir, 'pglite/pg_wal')),
    base: folderBytes(path.join(dataDir, 'pglite/base')),
  };
}

interface ReadsProber {
  readonly pid: number | undefined;
  /** Stops the prober and answers its samples. */
  finish(): Promise<ReadSample[]>;
}

async function startReadsProber(config: ReadsProberConfig): Promise<ReadsProber> {
  const child = spawnChild('reads prober', process.execPath, ['--import', 'tsx', PROBER], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '' },
    input: JSON.stringify(config),
    collectStdout: true,
  });
  const stop = deferCleanup(() => child.stop(5_000));
  const deadline = Date.now() + 60_000;
  while (!child.stdout().startsWith('ready\n')) {
    if (child.process.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`the reads prober did not start (or no request was answered):\n${child.output()}`);
    }
    await sleep(20);
  }
  return {
    pid: child.process.pid,
    finish: async () => {
      await stop();
      const line = child.stdout().trim().split('\n').at(-1) ?? '[]';
      return JSON.parse(line) as ReadSample[];
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Talking to the service

interface JobView {
  readonly result_ready: boolean;
  readonly status: string;
  readonly error: string | null;
  readonly progress: { done: number; total: number; indexed: number; skipped: number; failed: number };
  readonly files: readonly {
    status: string;
    reason: string | null;
    chunks: number;
    message: string | null;
  }[];
  readonly finished_at: string | null;
}

async function send(
  method: string,
  url: string,
  headers: Record<string, string>,
  body?: string | FormData,
  timeoutMs = REQUEST_TIMEOUT_MS,
): Promise<{ status: number; text: string; ms: number }> {
  const started = performance.now();
  const response = await fetch(url, {
    method,
    headers: typeof body === 'string' ? { ...headers, 'content-type': 'application/json' } : headers,
    body,
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  return { status: response.status, text, ms: performance.now() - started };
}

/** What following a job saw. */
interface FollowedJob {
  readonly view: JobView | undefined;
  /** The job's `finished_at` (epoch ms), or undefined when it had not finished by the deadline. */
  readonly finishedAtMs: number | undefined;
  /** Polls that failed without an answer (and were sent again). */
  readonly pollErrors: number;
}

/** Follows a job (one GET a second, each allowed two minutes) until it has finished or `deadlineMs`. */
async function followJob(
  baseUrl: string,
  headers: Record<string, string>,
  id: string,
  deadlineMs: number,
  alive: () => boolean,
  label: string,
): Promise<FollowedJob> {
  let pollErrors = 0;
  let view: JobView | undefined;
  let lastReport = Date.now();
  for (;;) {
    if (!alive()) throw new Error('the service exited while indexing');
    try {
      const answer = await send('GET', `${baseUrl}/v1/documents/jobs/${encodeURIComponent(id)}`, headers);
      if (answer.status !== 200)
        throw new Error(`job ${id} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
      view = JSON.parse(answer.text) as JobView;
      if (view.result_ready) {
        return {
          view,
          finishedAtMs: view.finished_at === null ? Date.now() : Date.parse(view.finished_at),
          pollErrors,
        };
      }
    } catch (error) {
      if (error instanceof Error && error.message.startsWith(`job ${id} answered`)) throw error;
      pollErrors += 1;
    }
    if (Date.now() > deadlineMs) return { view, finishedAtMs: undefined, pollErrors };
    if (Date.now() - lastReport > 15_000) {
      lastReport = Date.now();
      progress(
        `${label}: ${view === undefined ? 'no answer yet' : `${view.status}, ${view.progress.done} of ${view.progress.total} done`}`,
      );
    }
    await sleep(1_000);
  }
}

interface JsonUploads {
  readonly jobIds: readonly string[];
  /** From the first request's start to the last 202. */
  readonly answeredMs: number;
  readonly latencies: readonly number[];
}

/** JSON upload bodies, `inFlight` requests at a time, as a client would send them. */
async function uploadJson(
  baseUrl: string,
  headers: Record<string, string>,
  bodies: readonly string[],
  inFlight: number,
): Promise<JsonUploads> {
  const jobIds: string[] = new Array(bodies.length);
  const latencies: number[] = [];
  const started = performance.now();
  let answeredAt = started;
  let next = 0;
  const lanes = Array.from({ length: Math.min(inFlight, bodies.length) }, async () => {
    while (next < bodies.length) {
      const index = next++;
      const answer = await send('POST', `${baseUrl}/v1/documents`, headers, bodies[index]);
      latencies.push(answer.ms);
      if (answer.status !== 202) {
        throw new Error(`upload ${index + 1} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
      }
      jobIds[index] = (JSON.parse(answer.text) as { result_id: string }).result_id;
      answeredAt = Math.max(answeredAt, performance.now());
    }
  });
  await Promise.all(lanes);
  return { jobIds, answeredMs: answeredAt - started, latencies };
}

async function listAllDocuments(
  baseUrl: string,
  headers: Record<string, string>,
): Promise<{ id: number; external_id: string }[]> {
  const documents: { id: number; external_id: string }[] = [];
  for (let offset = 0; ; offset += 500) {
    const answer = await send('GET', `${baseUrl}/v1/documents?limit=500&offset=${offset}`, headers);
    if (answer.status !== 200) throw new Error(`GET /v1/documents answered ${answer.status}`);
    const page = JSON.parse(answer.text) as {
      documents: { id: number; external_id: string }[];
      total: number;
    };
    documents.push(...page.documents);
    if (page.documents.length === 0 || documents.length >= page.total) return documents;
  }
}

async function documentCount(baseUrl: string, headers: Record<string, string>): Promise<number> {
  const answer = await send('GET', `${baseUrl}/v1/documents?limit=1`, headers);
  if (answer.status !== 200) throw new Error(`GET /v1/documents answered ${answer.status}`);
  return Number((JSON.parse(answer.text) as { total: number }).total);
}

/**
 * Beside the CPU profiles: the phases and every probe, with the offset from the monotonic clock
 * the profiles' times count on (microseconds) to the probes' epoch milliseconds, so that a slow
 * request can be found in the profile.
 */
function writeTimeline(profileDir: string, run: DatabaseRun): void {
  const epochMinusMonotonicMs = Date.now() - Number(process.hrtime.bigint() / 1_000_000n);
  mkdirSync(profileDir, { recursive: true });
  writeFileSync(
    path.join(profileDir, 'probes.json'),
    JSON.stringify({ epochMinusMonotonicMs, phases: run.phases, samples: run.samples }),
  );
}

function startTheService(
  name: string,
  env: Readonly<Record<string, string>>,
  profileDir: string | undefined,
): Promise<RunningServer> {
  // Node names each profile after its process and thread: the parse threads get their own.
  const nodeArgs = profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`];
  // A start after much indexing may replay WAL for a while: wait up to 5 minutes for /readyz.
  return startServer({
    name,
    script: SERVICE_ENTRY,
    env,
    nodeArgs,
    readyPath: '/readyz',
    readyTimeoutMs: 300_000,
  });
}

// ---------------------------------------------------------------------------------------------
// One database

interface Phase {
  readonly name: PhaseName;
  readonly startMs: number;
  readonly endMs: number;
  /** False when its indexing had not finished by the time-out (the window ends there). */
  readonly finished: boolean;
  readonly usage: WindowUsage | undefined;
  /** Resident memory over the window: the median sample and the peak (VmHWM when it rose). */
  readonly rssMedian: number | undefined;
  readonly rssPeak: number | undefined;
}

interface UploadFigures {
  /** The 202 (the whole answer read), from the request's start. */
  readonly acceptedMs: number;
  /** From the request's start to the job's `finished_at`. */
  readonly indexedMs: number | undefined;
  readonly chunks: number;
  readonly indexed: number;
  readonly notIndexed: number;
  readonly problems: readonly string[];
  readonly pollErrors: number;
  readonly requests: number;
}

interface DiskFigures {
  readonly fresh: FolderSize;
  readonly before?: FolderSize;
  readonly peak?: FolderSize;
  readonly afterIndexing?: FolderSize;
  readonly afterDelete?: FolderSize;
  readonly afterRestart?: FolderSize;
  readonly deleted?: number;
  readonly deleteSeconds?: number;
  readonly deleteLatency?: Percentiles;
  /** The status and body (or error) of each delete not answered 204. */
  readonly failedDeletes?: readonly string[];
  /** The service's vacuum after the deletes, as it logged it. */
  readonly maintenance?: MaintenanceAfterDeletes;
  /** The vacuum a restart took up again, when the stop had cut one short. */
  readonly resumedMaintenance?: MaintenanceAfterDeletes;
  readonly stopSeconds?: number;
  readonly stopExit?: string;
  readonly startSeconds?: number;
  readonly documentsAfterRestart?: number;
}

interface DatabaseRun {
  readonly database: DatabaseName;
  phases: Phase[];
  samples: ReadSample[];
  big?: UploadFigures;
  scifact?: UploadFigures;
  disk?: DiskFigures;
  /** Why the run stopped early, if it did. */
  error?: string;
  seedDocuments: number;
}

interface ReadsInputs {
  readonly settings: IndexingSettings;
  readonly bigFile: BigMarkdown;
  readonly seed: readonly UploadDocument[];
  readonly corpus: readonly UploadDocument[];
  readonly queries: readonly string[];
  readonly adminUrl: string;
}

async function runDatabase(inputs: ReadsInputs, name: DatabaseName): Promise<DatabaseRun> {
  const { settings, bigFile } = inputs;
  const reads = settings.reads;
  const label = DATABASE_LABEL[name];
  const run: DatabaseRun = { database: name, phases: [], samples: [], seedDocuments: inputs.seed.length };
  const database: BenchDatabase = await createBenchDatabase(name, 'bench_reads', inputs.adminUrl, progress);
  const dataDir = database.location.kind === 'embedded' ? database.location.dataDir : undefined;
  // At `info`, as users run it: the data folder is measured once the service says its vacuum is done.
  const env = { LOG_LEVEL: 'info', ...database.env };
  const profileDir =
    settings.cpuProfileDir === undefined ? undefined : path.resolve(settings.cpuProfileDir, `reads-${name}`);
  let server: RunningServer | undefined;
  let memory: MemorySampler | undefined;
  let prober: ReadsProber | undefined;
  let diskTimer: NodeJS.Timeout | undefined;
  try {
    progress(`${label}: starting the service`);
    const service = await startTheService(`service (reads, ${name})`, env, profileDir);
    server = service;
    const pid = service.child.process.pid;
    if (pid === undefined) throw new Error('the service has no pid');
    const alive = () => service.child.process.exitCode === null && service.child.process.signalCode === null;
    const baseUrl = service.url;
    memory = new MemorySampler(pid);
    memory.start();
    const user = await registerUser(baseUrl, `reads-${name}`);
    const { headers } = user;
    let disk: DiskFigures | undefined = dataDir === undefined ? undefined : { fresh: dataDirSize(dataDir) };

    // The seed, so that searches have something to find and the job-status request a job.
    progress(`${label}: indexing ${inputs.seed.length} seed documents`);
    const seedUpload = await uploadJson(baseUrl, headers, [JSON.stringify({ documents: inputs.seed })], 1);
    const seedJobId = seedUpload.jobIds[0] ?? '';
    const seedJob = await followJob(
      baseUrl,
      headers,
      seedJobId,
      Date.now() + 300_000,
      alive,
      `${label} seed`,
    );
    if (seedJob.finishedAtMs === undefined)
      throw new Error('the seed documents were not indexed within 300 s');
    await sleep(2_000);

    const runningProber = await startReadsProber({
      baseUrl,
      token: user.accessToken,
      jobId: seedJobId,
      queries: inputs.queries,
      intervalMs: reads.intervalMs,
      timeoutMs: REQUEST_TIMEOUT_MS,
    });
    prober = runningProber;
    await sleep(1_000);

    /** Runs one phase: CPU sampled over it, memory and its window recorded. */
    const phase = async (
      phaseName: PhaseName,
      work: () => Promise<{ endMs?: number; finished: boolean }>,
    ): Promise<Phase> => {
      const sampler = cpuAccountingAvailable()
        ? new ProcessSampler({
            servicePids: [pid],
            helperPids: () => (runningProber.pid === undefined ? [] : [runningProber.pid]),
            ...(database.postgres === undefined
              ? {}
              : { postgres: { adminUrl: inputs.adminUrl, database: database.postgres.name } }),
          })
        : undefined;
      await sampler?.start();
      const highBefore = memory?.highWaterMark();
      const startMs = Date.now();
      let outcome: { endMs?: number; finished: boolean } = { finished: false };
      let usage: WindowUsage | undefined;
      try {
        outcome = await work();
      } finally {
        usage = await sampler?.stop();
        const endMs = Math.max(startMs + 1, outcome.endMs ?? Date.now());
        const highAfter = memory?.highWaterMark();
        const window = memory?.window(startMs, Math.max(endMs, Date.now()));
        // VmHWM catches a peak between two samples, but only when it rose during the window.
        const rose = highBefore !== undefined && highAfter !== undefined && highAfter > highBefore;
        const entry: Phase = {
          name: phaseName,
          startMs,
          endMs,
          finished: outcome.finished,
          usage,
          rssMedian: window?.median,
          rssPeak: window === undefined ? undefined : Math.max(window.max, rose ? highAfter : 0),
        };
        run.phases.push(entry);
      }
      return run.phases.at(-1) as Phase;
    };
    const idle = async (phaseName: PhaseName) =>
      phase(phaseName, async () => {
        progress(`${label}: ${PHASE_LABEL[phaseName]} for ${reads.idleSeconds} s`);
        await sleep(reads.idleSeconds * 1000);
        return { finished: true };
      });

    await idle('idle');
    if (dataDir !== undefined && disk !== undefined) {
      disk = { ...disk, before: dataDirSize(dataDir) };
      // The folder's largest size while indexing, looked at every 5 s.
      let peak = disk.before as FolderSize;
      diskTimer = setInterval(() => {
        const size = dataDirSize(dataDir);
        if (size.total > peak.total) peak = size;
        disk = { ...(disk as DiskFigures), peak };
      }, 5_000);
      run.disk = disk;
    }

    // The big file, as `curl -F file=@big.md` sends it.
    const bigPhase = await phase('big', async () => {
      progress(`${label}: uploading ${bigFile.path} (${(bigFile.bytes.length / MIB).toFixed(1)} MiB)`);
      const form = new FormData();
      form.append(
        'file',
        new Blob([new Uint8Array(bigFile.bytes)], { type: 'application/octet-stream' }),
        'big.md',
      );
      const sentAt = Date.now();
      const answer = await send('POST', `${baseUrl}/v1/documents`, headers, form, 600_000);
      if (answer.status !== 202) {
        throw new Error(
          `the big upload answered ${answer.status} after ${(answer.ms / 1000).toFixed(1)} s: ${answer.text.slice(0, 300)}`,
        );
      }
      progress(`${label}: big upload answered 202 after ${(answer.ms / 1000).toFixed(2)} s`);
      const jobId = (JSON.parse(answer.text) as { result_id: string }).result_id;
      const job = await followJob(
        baseUrl,
        headers,
        jobId,
        sentAt + reads.phaseTimeoutSeconds * 1000,
        alive,
        `${label} big file`,
      );
      run.big = figures(job, answer.ms, sentAt, 1);
      return { endMs: job.finishedAtMs, finished: job.finishedAtMs !== undefined };
    });
    if (!bigPhase.finished) {
      throw new Error(`the big file was not indexed within ${reads.phaseTimeoutSeconds} s (--phase-timeout)`);
    }
    await idle('idle-between');

    const scifactPhase = await phase('scifact', async () => {
      const { bodies } = uploadBatches(inputs.corpus, settings.batchSize);
      progress(
        `${label}: uploading ${formatNumber(inputs.corpus.length)} SciFact documents in ${bodies.length} requests`,
      );
      const sentAt = Date.now();
      const uploads = await uploadJson(baseUrl, headers, bodies, settings.inFlight);
      const deadline = sentAt + reads.phaseTimeoutSeconds * 1000;
      const jobs: FollowedJob[] = [];
      for (const id of uploads.jobIds) {
        jobs.push(await followJob(baseUrl, headers, id, deadline, alive, `${label} SciFact`));
      }
      const unfinished = jobs.some((job) => job.finishedAtMs === undefined);
      const endMs = unfinished ? undefined : Math.max(...jobs.map((job) => job.finishedAtMs ?? 0));
      run.scifact = {
        acceptedMs: uploads.answeredMs,
        indexedMs: endMs === undefined ? undefined : endMs - sentAt,
        chunks: sum(jobs.map((job) => sum(job.view?.files.map((file) => file.chunks) ?? []))),
        indexed: sum(jobs.map((job) => job.view?.progress.indexed ?? 0)),
        notIndexed: sum(
          jobs.map((job) => (job.view?.progress.failed ?? 0) + (job.view?.progress.skipped ?? 0)),
        ),
        problems: jobs.flatMap((job) => problemsOf(job.view)).slice(0, 5),
        pollErrors: sum(jobs.map((job) => job.pollErrors)),
        requests: bodies.length,
      };
      return { endMs, finished: !unfinished };
    });
    if (dataDir !== undefined && disk !== undefined) {
      clearInterval(diskTimer);
      const afterIndexing = dataDirSize(dataDir);
      const peak =
        disk.peak === undefined || afterIndexing.total > disk.peak.total ? afterIndexing : disk.peak;
      disk = { ...disk, afterIndexing, peak };
      run.disk = disk;
    }
    if (!scifactPhase.finished) {
      throw new Error(
        `the SciFact corpus was not indexed within ${reads.phaseTimeoutSeconds} s (--phase-timeout)`,
      );
    }
    await idle('idle-after');
    run.samples = await runningProber.finish();
    prober = undefined;
    memory.stop();
    if (profileDir !== undefined) writeTimeline(profileDir, run);

    if (dataDir === undefined || disk === undefined) return run;

    // Every document but the seed deleted through the API, then a clean restart.
    const maintenanceLog = new MaintenanceLog(service.child);
    const documents = await listAllDocuments(baseUrl, headers);
    const doomed = documents.filter((document) => !document.external_id.startsWith(SEED_PREFIX));
    progress(
      `${label}: deleting ${formatNumber(doomed.length)} of ${formatNumber(documents.length)} documents`,
    );
    const deleteStarted = performance.now();
    const deleteLatencies: number[] = [];
    const failedDeletes: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < doomed.length) {
          const document = doomed[next++];
          if (document === undefined) break;
          try {
            const answer = await send('DELETE', `${baseUrl}/v1/documents/${document.id}`, headers);
            deleteLatencies.push(answer.ms);
            if (answer.status !== 204) {
              failedDeletes.push(`${answer.status} ${answer.text.slice(0, 200)}`);
            }
          } catch (error) {
            failedDeletes.push(error instanceof Error ? error.message : String(error));
          }
        }
      }),
    );
    const lastDeleteAt = Date.now();
    const deleteSeconds = (performance.now() - deleteStarted) / 1000;
    progress(
      `${label}: deleted in ${deleteSeconds.toFixed(1)} s (${failedDeletes.length} failed); waiting for the service's vacuum after them`,
    );
    const maintenance = await waitForVacuumAfter(maintenanceLog, lastDeleteAt);
    maintenanceLog.close();
    progress(`${label}: ${describeMaintenance(maintenance)}; leaving the service ${reads.settleSeconds} s`);
    await sleep(reads.settleSeconds * 1000);
    disk = {
      ...disk,
      deleted: doomed.length,
      deleteSeconds,
      deleteLatency: summarise(deleteLatencies, failedDeletes.length),
      failedDeletes,
      maintenance,
      afterDelete: dataDirSize(dataDir),
    };
    run.disk = disk;

    progress(`${label}: restarting the service`);
    const stopStarted = performance.now();
    await service.child.stop(120_000);
    const stopSeconds = (performance.now() - stopStarted) / 1000;
    const { exitCode, signalCode } = service.child.process;
    await service.stop();
    server = undefined;
    const restartStarted = performance.now();
    const restartedAt = Date.now();
    const restarted = await startTheService(`service (reads, ${name}, restarted)`, env, profileDir);
    server = restarted;
    const startSeconds = (performance.now() - restartStarted) / 1000;
    const restartLog = new MaintenanceLog(restarted.child);
    await sleep(reads.settleSeconds * 1000);
    // A stop during the vacuum after deletes leaves it to the next start, which says so.
    const resumed = restartLog.has(STARTUP_VACUUM_MESSAGE)
      ? await waitForVacuumAfter(restartLog, restartedAt)
      : undefined;
    restartLog.close();
    disk = {
      ...disk,
      stopSeconds,
      stopExit: signalCode === null ? `exit ${exitCode}` : signalCode,
      startSeconds,
      resumedMaintenance: resumed,
      afterRestart: dataDirSize(dataDir),
      documentsAfterRestart: await documentCount(restarted.url, headers),
    };
    run.disk = disk;
    return run;
  } catch (error) {
    run.error = error instanceof Error ? error.message : String(error);
    progress(`${label}: stopped early: ${run.error}`);
    if (server !== undefined && server.child.process.exitCode !== null) {
      progress(`${label}: the service's last output:\n${server.child.output().slice(-3000)}`);
    }
    return run;
  } finally {
    clearInterval(diskTimer);
    if (prober !== undefined) run.samples = await prober.finish().catch(() => run.samples);
    memory?.stop();
    await server?.stop();
    await database.release();
  }
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

function problemsOf(view: JobView | undefined): string[] {
  if (view === undefined) return [];
  const files = view.files
    .filter((file) => file.status !== 'indexed')
    .map(
      (file) =>
        `${file.status}${file.reason === null ? '' : ` (${file.reason})`}${file.message === null ? '' : `: ${file.message.slice(0, 200)}`}`,
    );
  return view.error === null ? files : [`job: ${view.error}`, ...files];
}

function figures(job: FollowedJob, acceptedMs: number, sentAt: number, requests: number): UploadFigures {
  const view = job.view;
  return {
    acceptedMs,
    indexedMs: job.finishedAtMs === undefined ? undefined : job.finishedAtMs - sentAt,
    chunks: sum(view?.files.map((file) => file.chunks) ?? []),
    indexed: view?.progress.indexed ?? 0,
    notIndexed: (view?.progress.failed ?? 0) + (view?.progress.skipped ?? 0),
    problems: problemsOf(view),
    pollErrors: job.pollErrors,
    requests,
  };
}

// ---------------------------------------------------------------------------------------------
// Figures and verdicts

interface KindFigures {
  readonly latency: Percentiles;
  /** Answered with a status other than 200, not answered, or still waiting at the end. */
  readonly failed: number;
  readonly slow: number;
  /** Searches answered 200 with no result. */
  readonly empty: number;
}

interface PhaseFigures {
  readonly phase: Phase;
  readonly kinds: readonly KindFigures[];
  /** Requests of any kind over 2 s. */
  readonly slow: number;
  readonly failed: number;
}

function phaseFigures(phase: Phase, samples: readonly ReadSample[]): PhaseFigures {
  const inside = samples.filter(([, due]) => due >= phase.startMs && due < phase.endMs);
  const kinds = KINDS.map((_, kind) => {
    const mine = inside.filter(([sampleKind]) => sampleKind === kind);
    const failed = mine.filter(([, , , status]) => status !== 200).length;
    return {
      latency: summarise(
        mine.map(([, , latency]) => latency),
        failed,
      ),
      failed,
      slow: mine.filter(([, , latency]) => latency > READS_TARGETS.pglite.slowRequestMs).length,
      empty: mine.filter(([, , , status, hits]) => status === 200 && hits === 0 && kind === 0).length,
    };
  });
  return {
    phase,
    kinds,
    slow: sum(kinds.map((kind) => kind.slow)),
    failed: sum(kinds.map((kind) => kind.failed)),
  };
}

const mark = (ok: boolean) => (ok ? '✓' : '✗');
const ms = (value: number) =>
  Number.isNaN(value) ? 'n/a' : value < 10 ? value.toFixed(1) : formatNumber(value);
const mib = (bytes: number | undefined) => (bytes === undefined ? 'n/a' : formatNumber(bytes / MIB));
const triple = (latency: Percentiles) =>
  latency.count === 0 ? '–' : `${ms(latency.p50)} / ${ms(latency.p99)} / ${ms(latency.max)}`;

function checksFor(
  run: DatabaseRun,
  byPhase: ReadonlyMap<PhaseName, PhaseFigures>,
  bigFileMiB: number,
): Check[] {
  const label = DATABASE_LABEL[run.database];
  const checks: Check[] = [];
  const idle = byPhase.get('idle');
  const searchP99 = (name: PhaseName) => byPhase.get(name)?.kinds[0]?.latency.p99;
  const healthPart = (figures: PhaseFigures) => {
    const p99 = figures.kinds[2]?.latency.p99 ?? Number.NaN;
    return {
      ok: p99 <= READS_TARGETS.healthP99Ms,
      text: `/healthz p99 ${ms(p99)} ms (target ≤ ${READS_TARGETS.healthP99Ms} ms) ${mark(p99 <= READS_TARGETS.healthP99Ms)}`,
    };
  };
  const failedPart = (figures: PhaseFigures) => ({
    ok: figures.failed === 0,
    text: `${figures.failed} request(s) failed or unanswered (target 0) ${mark(figures.failed === 0)}`,
  });
  for (const name of ['idle', 'idle-between', 'idle-after'] as const) {
    const figures = byPhase.get(name);
    if (figures === undefined) continue;
    const parts = [healthPart(figures), failedPart(figures)];
    checks.push(verdict(`${label}, ${PHASE_LABEL[name]}`, parts));
  }
  for (const name of ['big', 'scifact'] as const) {
    const figures = byPhase.get(name);
    const title = `${label}, while the ${PHASE_LABEL[name]} is indexed`;
    if (figures === undefined) {
      checks.push({
        met: false,
        text: `${title}: **not measured**: ${run.error ?? 'the phase did not run'}`,
      });
      continue;
    }
    const parts: { ok: boolean; text: string }[] = [];
    if (!figures.phase.finished) {
      parts.push({ ok: false, text: `indexing did not finish within the time-out ✗` });
    }
    const p99 = figures.kinds[0]?.latency.p99 ?? Number.NaN;
    // Each indexing phase is compared with the idle service holding what it ends with: searches
    // read every posting of their terms, so the same queries cost more on the grown index with or
    // without writes (on PostgreSQL, idle p99 15 ms before SciFact and 30 ms after it, one run).
    // The phase's tail falls where its index is largest; the idle phase before it, which would
    // count that growth as the writes' doing, is shown beside it, not judged.
    const baseline: PhaseName = name === 'big' ? 'idle-between' : 'idle-after';
    const before: PhaseName = name === 'big' ? 'idle' : 'idle-between';
    const idleSearchP99 = searchP99(baseline);
    const idleSearches = byPhase.get(baseline)?.kinds[0]?.latency.count ?? 0;
    const ratio = idleSearchP99 === undefined ? Number.NaN : p99 / idleSearchP99;
    const beforeP99 = searchP99(before);
    const versusBefore =
      beforeP99 === undefined
        ? ''
        : `; ${(p99 / beforeP99).toFixed(1)}× the ${ms(beforeP99)} ms of the phase "${PHASE_LABEL[before]}" before it`;
    const idleName = PHASE_LABEL[baseline];
    if (run.database === 'pglite') {
      const limits = READS_TARGETS.pglite;
      parts.push({
        ok: p99 <= limits.searchP99Ms,
        text: `search p99 ${ms(p99)} ms (target ≤ ${formatNumber(limits.searchP99Ms)} ms) ${mark(p99 <= limits.searchP99Ms)}`,
      });
      parts.push({
        ok: ratio <= limits.searchVsIdle,
        text: `${ratio.toFixed(1)}× the p99 of ${ms(idleSearchP99 ?? Number.NaN)} ms of ${idleSearches} searches in the phase "${idleName}" after it (target ≤ ${limits.searchVsIdle}×) ${mark(ratio <= limits.searchVsIdle)}${versusBefore}`,
      });
      parts.push({
        ok: figures.slow === 0,
        text: `${figures.slow} request(s) over 2 s (target 0) ${mark(figures.slow === 0)}`,
      });
    } else {
      const limit = READS_TARGETS.postgres.searchVsIdle;
      parts.push({
        ok: ratio <= limit,
        text: `search p99 ${ms(p99)} ms, ${ratio.toFixed(1)}× the p99 of ${ms(idleSearchP99 ?? Number.NaN)} ms of ${idleSearches} searches in the phase "${idleName}" after it (target ≤ ${limit}×) ${mark(ratio <= limit)}${versusBefore}`,
      });
    }
    parts.push(healthPart(figures), failedPart(figures));
    checks.push(verdict(title, parts));
  }
  // The big upload: its 202, memory, and that it was indexed at all.
  const bigPhase = byPhase.get('big')?.phase;
  if (run.big !== undefined && bigPhase !== undefined) {
    const parts: { ok: boolean; text: string }[] = [];
    const full = bigFileMiB >= READS_TARGETS.bigFileMiB;
    const accepted = run.big.acceptedMs;
    const over =
      bigPhase.rssPeak === undefined || idle?.phase.rssMedian === undefined
        ? undefined
        : (bigPhase.rssPeak - idle.phase.rssMedian) / MIB;
    if (full) {
      parts.push({
        ok: accepted <= READS_TARGETS.acceptedMs,
        text: `202 after ${(accepted / 1000).toFixed(2)} s (target ≤ ${READS_TARGETS.acceptedMs / 1000} s) ${mark(accepted <= READS_TARGETS.acceptedMs)}`,
      });
      parts.push({
        ok: over !== undefined && over <= READS_TARGETS.memoryOverIdleMiB,
        text: `peak RSS ${over === undefined ? 'n/a' : formatNumber(over)} MiB over idle (target ≤ ${READS_TARGETS.memoryOverIdleMiB} MiB) ${mark(over !== undefined && over <= READS_TARGETS.memoryOverIdleMiB)}`,
      });
    } else {
      parts.push({
        ok: true,
        text: `202 after ${(accepted / 1000).toFixed(2)} s, peak RSS ${over === undefined ? 'n/a' : formatNumber(over)} MiB over idle (the ≤ ${READS_TARGETS.acceptedMs / 1000} s and ≤ ${READS_TARGETS.memoryOverIdleMiB} MiB targets are for ${READS_TARGETS.bigFileMiB} MiB: not checked at ${bigFileMiB} MiB)`,
      });
    }
    const indexed = run.big.indexed === 1 && run.big.notIndexed === 0;
    parts.push({
      ok: indexed,
      text: `${indexed ? 'indexed' : `not indexed (${run.big.problems.join('; ') || 'no outcome'})`}, ${formatNumber(run.big.chunks)} chunks ${mark(indexed)}`,
    });
    checks.push(verdict(`${label}, the big upload`, parts));
  } else if (run.error !== undefined) {
    checks.push({ met: false, text: `${label}, the big upload: **not measured**: ${run.error}` });
  }
  if (run.database === 'pglite') {
    const disk = run.disk;
    if (disk?.before !== undefined && disk.afterRestart !== undefined) {
      const ratio = disk.afterRestart.total / disk.before.total;
      const ok = ratio <= READS_TARGETS.diskRatio;
      const kept = disk.documentsAfterRestart === run.seedDocuments;
      const deletesAnswered = (disk.failedDeletes?.length ?? 0) === 0;
      checks.push(
        verdict(`${label}, data folder`, [
          {
            ok,
            text: `${mib(disk.afterRestart.total)} MiB after deleting the uploads and a restart, ${ratio.toFixed(2)}× the ${mib(disk.before.total)} MiB before them (target ≤ ${READS_TARGETS.diskRatio}×) ${mark(ok)}`,
          },
          {
            ok: kept,
            text: `${disk.documentsAfterRestart ?? 'n/a'} documents left, the ${run.seedDocuments} of the seed ${mark(kept)}`,
          },
          {
            ok: deletesAnswered,
            text: `${disk.failedDeletes?.length ?? 'n/a'} deletes not answered 204 ${mark(deletesAnswered)}`,
          },
        ]),
      );
    } else {
      checks.push({
        met: false,
        text: `${label}, data folder: **not measured**: ${run.error ?? 'the run stopped early'}`,
      });
    }
  }
  return checks;
}

function verdict(title: string, parts: readonly { ok: boolean; text: string }[]): Check {
  const met = parts.every((part) => part.ok);
  return {
    met,
    text: `${title}: **${met ? 'met' : 'not met'}**: ${parts.map((part) => part.text).join('; ')}`,
  };
}

interface ReportContext {
  readonly settings: IndexingSettings;
  readonly available: AvailableDatabases;
  readonly startedAt: Date;
  readonly tookSeconds: number;
  readonly bigFile: BigMarkdown;
  readonly corpusSize: number;
  readonly documents: number;
}

function report(context: ReportContext, runs: readonly DatabaseRun[]): { markdown: string; checks: Check[] } {
  const { settings, bigFile } = context;
  const reads = settings.reads;
  const checks: Check[] = [];
  const phaseRows: string[][] = [];
  const uploadRows: string[][] = [];
  const notes: string[] = [];
  for (const run of runs) {
    const label = DATABASE_LABEL[run.database];
    const byPhase = new Map<PhaseName, PhaseFigures>();
    for (const phase of run.phases) byPhase.set(phase.name, phaseFigures(phase, run.samples));
    checks.push(...checksFor(run, byPhase, reads.bigFileMiB));
    for (const figures of byPhase.values()) {
      const { phase, kinds } = figures;
      phaseRows.push([
        label,
        `${PHASE_LABEL[phase.name]}${phase.finished ? '' : ' (unfinished)'}`,
        ((phase.endMs - phase.startMs) / 1000).toFixed(1),
        ...kinds.map((kind) => triple(kind.latency)),
        String(figures.slow),
        String(figures.failed),
        phase.usage === undefined ? 'n/a' : phase.usage.serviceCpuSeconds.toFixed(1),
        phase.usage?.databaseCpuSeconds === undefined ? '–' : phase.usage.databaseCpuSeconds.toFixed(1),
        phase.usage?.otherCores === undefined ? 'n/a' : phase.usage.otherCores.toFixed(2),
        `${mib(phase.rssMedian)} / ${mib(phase.rssPeak)}`,
      ]);
      const empty = kinds[0]?.empty ?? 0;
      if (empty > 0)
        notes.push(`${label}, ${PHASE_LABEL[phase.name]}: ${empty} search(es) answered 200 with no result.`);
    }
    const idleRss = byPhase.get('idle')?.phase.rssMedian;
    for (const [name, upload] of [
      ['big', run.big],
      ['scifact', run.scifact],
    ] as const) {
      if (upload === undefined) continue;
      const phase = byPhase.get(name)?.phase;
      uploadRows.push([
        label,
        name === 'big'
          ? `big.md, ${(bigFile.bytes.length / MIB).toFixed(1)} MiB, 1 multipart request`
          : `SciFact, ${formatNumber(context.documents)} documents, ${upload.requests} JSON requests`,
        (upload.acceptedMs / 1000).toFixed(2),
        upload.indexedMs === undefined ? 'unfinished' : (upload.indexedMs / 1000).toFixed(1),
        formatNumber(upload.chunks),
        String(upload.notIndexed),
        mib(idleRss),
        mib(phase?.rssPeak),
        phase?.rssPeak === undefined || idleRss === undefined
          ? 'n/a'
          : formatNumber((phase.rssPeak - idleRss) / MIB),
      ]);
      for (const problem of upload.problems) notes.push(`${label}, ${PHASE_LABEL[name]}: ${problem}`);
      if (upload.pollErrors > 0) {
        notes.push(
          `${label}, ${PHASE_LABEL[name]}: ${upload.pollErrors} look(s) at the job failed without an answer and were sent again.`,
        );
      }
    }
    if (run.error !== undefined) notes.push(`${label}: the run stopped early: ${run.error}`);
  }
  const pglite = runs.find((run) => run.database === 'pglite');
  const disk = pglite?.disk;
  const diskLines: string[] = [];
  if (disk !== undefined) {
    const row = (point: string, size: FolderSize | undefined, documents: string) => [
      point,
      mib(size?.total),
      mib(size?.wal),
      mib(size?.base),
      size === undefined ? 'n/a' : mib(size.total - size.wal - size.base),
      documents,
    ];
    const seed = String(pglite?.seedDocuments ?? 0);
    const all = formatNumber((pglite?.seedDocuments ?? 0) + 1 + context.documents);
    diskLines.push(
      '',
      markdownTable(
        ['PGlite DATA_DIR', 'total MiB', 'pg_wal MiB', 'base MiB', 'other MiB', 'documents'],
        [
          row('fresh: started, no document', disk.fresh, '0'),
          row('before the uploads (seed indexed, after the idle phase)', disk.before, seed),
          row('largest while indexing (looked at every 5 s, and at the end)', disk.peak, '–'),
          row('after indexing (the last SciFact job finished)', disk.afterIndexing, all),
          row(
            `after deleting all but the seed (the vacuum after them logged, + ${reads.settleSeconds} s)`,
            disk.afterDelete,
            seed,
          ),
          row(
            `after a restart (+ ${reads.settleSeconds} s${disk.resumedMaintenance === undefined ? '' : ', and the vacuum it took up again'})`,
            disk.afterRestart,
            disk.documentsAfterRestart === undefined ? 'n/a' : String(disk.documentsAfterRestart),
          ),
        ],
        ['l', 'r', 'r', 'r', 'r', 'r'],
      ),
    );
    if (disk.deleted !== undefined) {
      diskLines.push(
        '',
        `The ${formatNumber(disk.deleted)} deletes took ${disk.deleteSeconds?.toFixed(1)} s (4 at a time; p50 ${ms(disk.deleteLatency?.p50 ?? Number.NaN)} ms, p99 ${ms(disk.deleteLatency?.p99 ?? Number.NaN)} ms, ${disk.failedDeletes?.length ?? 'n/a'} not answered 204${failedDeletesLine(disk.failedDeletes)}).` +
          (disk.maintenance === undefined ? '' : ` ${sentence(describeMaintenance(disk.maintenance))}.`) +
          (disk.stopSeconds === undefined
            ? ''
            : ` The service stopped in ${disk.stopSeconds.toFixed(1)} s (${disk.stopExit} after SIGTERM) and answered /readyz again ${disk.startSeconds?.toFixed(1)} s after it was started` +
              (disk.resumedMaintenance === undefined
                ? '; it had no vacuum to take up again.'
                : `; it took up a vacuum the stop had cut short: ${describeMaintenance(disk.resumedMaintenance, 'again')} (from its start).`)),
      );
    }
  }
  const full = reads.bigFileMiB >= READS_TARGETS.bigFileMiB;
  const lines = [
    '## Indexing: reads while a big file and a corpus are indexed (`bench/indexing --section=reads`)',
    '',
    `Run ${context.startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC on ${environmentLine()}.`,
    `Command: \`${commandLine('bench:indexing', 'bench/indexing/run.ts')}\`; took ${Math.round(context.tookSeconds)} s.`,
    ...postgresLine(context.available),
    '',
    'One service process per database, as users run it (`node dist/src/main.js`, `LOG_LEVEL=warn`, default',
    'settings; PGlite in a new temporary `DATA_DIR`, PostgreSQL in a new database). It first indexes',
    `${formatNumber(reads.seedDocuments)} SciFact abstracts (one JSON upload, external ids \`seed-…\`), the seed. Then a prober in a`,
    `process of its own sends, every ${reads.intervalMs} ms, each on a fixed schedule of its own (staggered, never waiting for an`,
    'answer): `POST /v1/search` (the next SciFact test query, `top_k` 10), `GET /v1/documents/jobs/{id}` of the',
    "seed's job, and `GET /healthz`. Latency runs from when a request was due to its whole answer; a request is",
    `given up after ${REQUEST_TIMEOUT_MS / 1000} s, and one still unanswered when the prober stops counts with the time it had waited.`,
    'A request belongs to the phase in which it was due. `failed` counts answers other than 200, time-outs and',
    'requests never answered. The phases, one after the other on the same service:',
    '',
    `- **idle**: ${reads.idleSeconds} s with nothing but the probes (the seed indexed).`,
    `- **big Markdown file**: \`big.md\`, ${formatNumber(bigFile.bytes.length)} bytes of real Markdown (the README.md of the ${bigFile.readmes} packages under`,
    `  node_modules, each under a \`# <package>\` heading, ${formatNumber(bigFile.roundBytes / MIB, 1)} MiB, repeated ${bigFile.rounds}× and cut at a line end; sha256`,
    `  ${bigFile.sha256}…), sent as one multipart \`file\` part as \`curl -F file=@big.md\` sends it; from the request's`,
    "  start to its job's `finished_at`. `202 s` is the time until the upload's answer was read (for SciFact,",
    "  until the last request's answer was).",
    `- **idle, after the big file**: ${reads.idleSeconds} s with nothing but the probes, on the seed and the big file's chunks.`,
    `- **SciFact corpus**: ${context.documents === context.corpusSize ? 'the whole corpus' : `the first ${formatNumber(context.documents)} documents of the corpus`} (${formatNumber(context.documents)} abstracts), ${settings.batchSize} documents a JSON request,`,
    `  ${settings.inFlight} requests in flight; from the first request to the last job's \`finished_at\`.`,
    `- **idle, after indexing**: ${reads.idleSeconds} s more with nothing but the probes, on the grown index.`,
    '',
    'CPU is user + system time from /proc over each phase: the service process (its parse threads included) and,',
    "on PostgreSQL, the backends on the benchmark's database; `other load` is the rest of the machine, less this",
    'script and its prober. `RSS` is the resident memory of the service process and any children, sampled every',
    "200 ms: the median over the phase / the largest (or the process's VmHWM when it rose during the phase).",
    '`over idle` is the peak during the upload minus the median of the first idle phase.',
    '',
    markdownTable(
      [
        'Database',
        'Phase',
        'seconds',
        'search p50 / p99 / max ms',
        'job status p50 / p99 / max ms',
        '/healthz p50 / p99 / max ms',
        'over 2 s',
        'failed',
        'service CPU s',
        'PostgreSQL CPU s',
        'other load (cores)',
        'RSS median / peak MiB',
      ],
      phaseRows,
      ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
    ),
    '',
    markdownTable(
      [
        'Database',
        'Upload',
        '202 s',
        'indexed in s',
        'chunks',
        'not indexed',
        'idle RSS MiB',
        'peak RSS MiB',
        'over idle MiB',
      ],
      uploadRows,
      ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
    ),
    ...(disk === undefined
      ? []
      : [
          '',
          'On PGlite the data folder is measured (apparent file sizes under `DATA_DIR`; `pg_wal` and `base`, the tables,',
          'apart) at each step. After indexing, every document but the seed is deleted through the API',
          '(`GET /v1/documents` paged, then `DELETE /v1/documents/{id}`), so that the folder holds the same',
          `documents as before the uploads. The folder is measured once the service (at \`LOG_LEVEL=info\`, its default) logs`,
          `its vacuum after the deletes and the checkpoint after it, and ${reads.settleSeconds} s more; the service is then stopped with`,
          'SIGTERM (as an orchestrator stops it), started again on the same folder, and measured again',
          `${reads.settleSeconds} s after it answers /readyz (or, if it logs that it takes up a vacuum cut short, once that is done).`,
          ...diskLines,
        ]),
    ...(notes.length === 0 ? [] : ['', ...notes]),
    '',
    'Targets (issue): on PGlite, search p99 while indexing ≤ 1 s and ≤ 10× its idle p99, no request over 2 s; on',
    'PostgreSQL, search p99 while indexing ≤ 3× its idle p99; the 202 for a 30 MiB multipart upload within 2 s and the',
    "process's peak memory while it is indexed at most 500 MiB above its idle size; /healthz p99 ≤ 50 ms throughout;",
    "after deleting the uploads and a restart, PGlite's data folder at most 1.5× its size before them. Here also: no",
    'request fails, and the uploads are indexed. "Its idle p99" is the idle phase just after it, on the index the',
    'phase ends with: searches read through every posting of their terms, so a grown index costs more to search with',
    'or without writes, and the tail of a phase falls where its index is largest (the ratio to the idle phase before',
    'it, on the index it starts from, is shown too).' +
      (full ? '' : ` The big file was ${reads.bigFileMiB} MiB: the 202 and memory targets are not checked.`),
    '',
    ...verdictLines(checks, context.available.skipped),
  ];
  return { markdown: lines.join('\n'), checks };
}

// ---------------------------------------------------------------------------------------------

/** Seconds the section may take at most, for the benchmark's overall deadline. */
export function readsDeadlineSeconds(settings: IndexingSettings, databases: number): number {
  const reads = settings.reads;
  return (
    databases * (600 + 3 * reads.idleSeconds + 2 * reads.phaseTimeoutSeconds + 2 * reads.settleSeconds + 900)
  );
}

export async function runReadsSection(
  settings: IndexingSettings,
  available: AvailableDatabases,
): Promise<void> {
  const startedAt = new Date();
  const reads = settings.reads;
  const scifact = loadScifact(settings.datasetDir);
  const all = scifactUploads(scifact.documents);
  const seed = all.slice(0, reads.seedDocuments).map((document) => ({
    ...document,
    external_id: `${SEED_PREFIX}${document.external_id}`,
  }));
  const corpus = all.slice(0, settings.limit ?? all.length);
  const bigFile = buildBigMarkdown(Math.round(reads.bigFileMiB * MIB));
  progress(
    `big file: ${bigFile.path}, ${formatNumber(bigFile.bytes.length)} bytes from ${bigFile.readmes} READMEs (${bigFile.rounds} rounds), sha256 ${bigFile.sha256}…`,
  );
  const inputs: ReadsInputs = {
    settings,
    bigFile,
    seed,
    corpus,
    queries: scifact.queries.map((query) => query.text),
    adminUrl: available.adminUrl,
  };
  const runs: DatabaseRun[] = [];
  for (const database of available.databases) runs.push(await runDatabase(inputs, database));
  const context: ReportContext = {
    settings,
    available,
    startedAt,
    tookSeconds: (Date.now() - startedAt.getTime()) / 1000,
    bigFile,
    corpusSize: all.length,
    documents: corpus.length,
  };
  publishSection(
    'indexing-reads',
    report(context, runs),
    // A profiled service is slower: its figures are not the service's.
    { write: settings.write && settings.cpuProfileDir === undefined, after: 'indexing' },
    progress,
  );
}

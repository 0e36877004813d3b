// `npm run bench:search-load` (`npx tsx bench/search-load/run.ts`): POST /v1/search from one
// client, then from 50 at once, on the same running service with SciFact's abstracts, while a
// prober in a process of its own sends GET /healthz every 50 ms; on PGlite (whose database runs in
// a thread of its own, so HTTP should keep answering) and, for information, PostgreSQL. Writes
// the search-load section of docs/benchmarks.md. `--help` lists the settings.
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { ProbeSample } from '../indexing/prober.js';
import { type Child, deferCleanup, runBenchmark, spawnChild } from '../lib/children.js';
import { cpuSecondsBetween, sampleCpu, systemBusySeconds } from '../lib/cpu.js';
import {
  type AvailableDatabases,
  type Check,
  createBenchDatabase,
  DATABASE_LABEL,
  type DatabaseName,
  postgresLine,
  verdictLines,
} from '../lib/databases.js';
import { ROOT } from '../lib/paths.js';
import { DEFAULT_BENCH_DATABASE_URL } from '../lib/postgres.js';
import { commandLine, environmentLine, formatNumber, markdownTable } from '../lib/report.js';
import { DEFAULT_SCIFACT_DIR, type loadScifact, type ScifactQuery } from '../lib/scifact.js';
import {
  indexScifact,
  readScifactSettings,
  runScifactBench,
  type ScifactSettings,
} from '../lib/scifact-bench.js';
import { searchOnce } from '../lib/search-client.js';
import { cpuProfileArgs, postingsInMemory, type RunningServer, startService } from '../lib/service.js';
import { parseFlags, SERVICE_RUN_FLAGS, Settings, serviceRunUsage } from '../lib/settings.js';
import { percentile, sleep } from '../lib/stats.js';
import type { BenchUser } from '../lib/users.js';
import { type ClientsRun, runSearchClients, searchAgent } from './search-clients.js';
import { openThreadWindow, type ThreadLoad } from './thread-cpu.js';

const NAME = 'search-load';
/** Issue #37's targets for PGlite under the concurrent clients. */
const TARGET = { healthzP99Ms: 50, throughputRatio: 1.3, slowMs: 3_000 };
/** A probe unanswered this long counts as failed (the prober gives up then). */
const PROBE_TIMEOUT_MS = 5_000;
/** A search unanswered this long counts as an error. */
const SEARCH_TIMEOUT_MS = 30_000;
const PROBER = path.join(ROOT, 'bench/indexing/prober.ts');
const LOOP_DELAY_RESOLUTION_MS = 10;
/** What issue #37 measured before PGlite ran in a thread of its own. */
const BEFORE =
  '50 clients searching for 15 s: 39 searches/s (the same as 1 client), p50 1.3 s, p99 2.2 s; `/healthz` p99 1.2 s with only 27 of ~300 probes answered';

const USAGE = `npx tsx bench/search-load/run.ts [options]   (npm run bench:search-load -- [options])

Uploads SciFact's abstracts through POST /v1/documents, then sends POST /v1/search (SciFact test
queries, cycling) from one client, then from --clients clients at once, each for --duration
seconds, while a prober in a process of its own sends GET /healthz every --probe-interval ms.

Options (or the BENCH_* variable in brackets):
  --databases LIST      pglite and/or postgres (BENCH_DATABASES, default pglite,postgres;
                        PostgreSQL, for information, is skipped when BENCH_DATABASE_URL does not answer)
  --clients N           concurrent clients of the second phase (BENCH_CLIENTS, default 50)
  --duration S          measured seconds of each phase (BENCH_DURATION, default 15)
  --warmup S            seconds of the same load before each phase, not counted (BENCH_WARMUP, default 3)
  --probe-interval MS   time between /healthz probes (BENCH_PROBE_INTERVAL, default 50)
  --queries N           SciFact test queries cycled through (BENCH_QUERIES, default 300, at most 300)
  --top-k N             top_k of each search (BENCH_TOP_K, default 10)
  --batch N             documents per upload request (BENCH_BATCH, default 250)
  --timeout S           give up indexing after S seconds (BENCH_TIMEOUT, default 600)
  --dataset DIR         the SciFact copy (BENCH_SCIFACT_DIR, default ${DEFAULT_SCIFACT_DIR})
  --cpu-prof DIR        write V8 CPU profiles of each service process into DIR (figures not written)
${serviceRunUsage(24)}
  -h, --help            this text
  PostgreSQL: BENCH_DATABASE_URL (default ${DEFAULT_BENCH_DATABASE_URL})`;

type SearchLoadSettings = ScifactSettings & {
  readonly clients: number;
  readonly durationSeconds: number;
  readonly warmupSeconds: number;
  readonly probeIntervalMs: number;
  readonly topK: number;
  readonly cpuProfileDir: string | undefined;
};

function parseSettings(argv: readonly string[], env: NodeJS.ProcessEnv): SearchLoadSettings {
  const values = parseFlags(
    argv,
    [
      'databases',
      'clients',
      'duration',
      'warmup',
      'probe-interval',
      'queries',
      'top-k',
      'batch',
      'timeout',
      'dataset',
      'cpu-prof',
    ],
    [...SERVICE_RUN_FLAGS],
    USAGE,
  );
  const read = new Settings(values, env, USAGE);
  const cpuProfileDir = read.string('cpu-prof', 'BENCH_CPU_PROF', '');
  return {
    clients: read.number('clients', 'BENCH_CLIENTS', 50, 2, 500),
    durationSeconds: read.number('duration', 'BENCH_DURATION', 15, 1, 600),
    warmupSeconds: read.number('warmup', 'BENCH_WARMUP', 3, 0, 120),
    probeIntervalMs: read.number('probe-interval', 'BENCH_PROBE_INTERVAL', 50, 5, 10_000),
    topK: read.number('top-k', 'BENCH_TOP_K', 10, 1, 100),
    cpuProfileDir: cpuProfileDir === '' ? undefined : path.resolve(cpuProfileDir),
    ...readScifactSettings(read),
  };
}

function progress(message: string): void {
  process.stderr.write(`[bench:${NAME}] ${message}\n`);
}

// ---------------------------------------------------------------------------------------------
// The /healthz prober: bench/indexing's, in a process of its own, so that this process's clients
// never delay a probe. It times each probe from when it was due, on a fixed schedule.
// ---------------------------------------------------------------------------------------------

interface HealthProber {
  /** Stops the prober and answers its samples. */
  finish(): Promise<ProbeSample[]>;
  /** Stops it, if it still runs (on failure). */
  stop(): Promise<void>;
  readonly pid: number | undefined;
}

async function startProber(baseUrl: string, intervalMs: number): Promise<HealthProber> {
  const child: Child & { stdout(): string } = spawnChild(
    'healthz prober',
    process.execPath,
    ['--import', 'tsx', PROBER, `${baseUrl}/healthz`, String(intervalMs)],
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
    finish: async () => {
      await stop();
      const line = child.stdout().trim().split('\n').at(-1) ?? '[]';
      return JSON.parse(line) as ProbeSample[];
    },
    stop,
    pid: child.process.pid,
  };
}

interface ProbeSummary {
  /** Probes due within the window (those never recorded count as unanswered). */
  readonly sent: number;
  readonly answered: number;
  /** Over every probe sent, an unanswered one counting as slower than any answered. */
  readonly p50: number;
  readonly p99: number;
  /** Of the answered probes. */
  readonly max: number;
}

function summariseProbes(
  samples: readonly ProbeSample[],
  windowStartEpochMs: number,
  windowMs: number,
  intervalMs: number,
): ProbeSummary {
  const inWindow = samples.filter(
    ([sentAt]) => sentAt >= windowStartEpochMs && sentAt < windowStartEpochMs + windowMs,
  );
  const answered = inWindow.filter(([, , ok]) => ok === 1).map(([, ms]) => ms);
  const sent = Math.max(inWindow.length, Math.floor(windowMs / intervalMs));
  const all = [...answered].sort((a, b) => a - b);
  while (all.length < sent) all.push(Number.POSITIVE_INFINITY);
  return {
    sent,
    answered: answered.length,
    p50: percentile(all, 0.5),
    p99: percentile(all, 0.99),
    max: answered.length === 0 ? Number.NaN : Math.max(...answered),
  };
}

// ---------------------------------------------------------------------------------------------
// One phase: some clients searching for the measured window, with /healthz probes meanwhile.
// ---------------------------------------------------------------------------------------------

interface PhaseOutcome {
  readonly run: ClientsRun;
  readonly probes: ProbeSummary;
  /** The service process's threads over the window. */
  readonly service: ThreadLoad | undefined;
  /** This process (the clients) over the window: cores of CPU, and its event loop's delay. */
  readonly benchCores: number;
  readonly benchLoopDelayP99Ms: number;
  /** Cores the rest of the machine used meanwhile (PostgreSQL's backends among them). */
  readonly otherCores: number | undefined;
}

interface PhaseContext {
  readonly settings: SearchLoadSettings;
  readonly service: RunningServer;
  readonly user: BenchUser;
  readonly queries: readonly ScifactQuery[];
  /** Shared by the phases, so that each goes on in the cycle of queries. */
  readonly cursor: { next: number };
  readonly log: (message: string) => void;
}

async function runPhase(context: PhaseContext, clients: number): Promise<PhaseOutcome> {
  const { settings, service, log } = context;
  const agent = searchAgent(clients);
  const prober = await startProber(service.url, settings.probeIntervalMs);
  try {
    const common = {
      baseUrl: service.url,
      headers: context.user.headers,
      queries: context.queries,
      topK: settings.topK,
      clients,
      requestTimeoutMs: SEARCH_TIMEOUT_MS,
      slowMs: TARGET.slowMs,
      cursor: context.cursor,
    };
    if (settings.warmupSeconds > 0) {
      log(`${clients} client(s): ${settings.warmupSeconds} s of warm-up`);
      await runSearchClients(agent, { ...common, durationMs: settings.warmupSeconds * 1000 });
    }
    log(`${clients} client(s): measuring for ${settings.durationSeconds} s`);
    const loopDelay = monitorEventLoopDelay({ resolution: LOOP_DELAY_RESOLUTION_MS });
    const proberPids = prober.pid === undefined ? [] : [prober.pid];
    let closeThreads: () => ThreadLoad | undefined = () => undefined;
    let cpuBefore = process.cpuUsage();
    let proberBefore = sampleCpu(proberPids);
    let machineBefore: number | undefined;
    let windowStartedAt = 0;
    let measured: Omit<PhaseOutcome, 'run' | 'probes'> = {
      service: undefined,
      benchCores: Number.NaN,
      benchLoopDelayP99Ms: Number.NaN,
      otherCores: undefined,
    };
    const run = await runSearchClients(agent, {
      ...common,
      durationMs: settings.durationSeconds * 1000,
      onStart: () => {
        windowStartedAt = performance.now();
        closeThreads = openThreadWindow(service.child.process.pid);
        cpuBefore = process.cpuUsage();
        proberBefore = sampleCpu(proberPids);
        machineBefore = systemBusySeconds();
        loopDelay.enable();
      },
      onWindowEnd: () => {
        loopDelay.disable();
        const machineAfter = systemBusySeconds();
        const own = process.cpuUsage(cpuBefore);
        const ownSeconds = (own.user + own.system) / 1e6;
        const proberSeconds = cpuSecondsBetween(proberBefore, sampleCpu(proberPids));
        const seconds = (performance.now() - windowStartedAt) / 1000;
        const serviceLoad = closeThreads();
        measured = {
          service: serviceLoad,
          benchCores: ownSeconds / seconds,
          // The histogram counts the timer's own period: what is beyond it is the delay.
          benchLoopDelayP99Ms: Math.max(0, loopDelay.percentile(99) / 1e6 - LOOP_DELAY_RESOLUTION_MS),
          otherCores:
            machineBefore === undefined || machineAfter === undefined || serviceLoad === undefined
              ? undefined
              : Math.max(
                  0,
                  (machineAfter - machineBefore - ownSeconds - proberSeconds) / seconds -
                    serviceLoad.totalCores,
                ),
        };
      },
    });
    if (service.child.process.exitCode !== null || service.child.process.signalCode !== null) {
      throw new Error(`the service exited during the ${clients}-client phase:\n${service.child.output()}`);
    }
    // Probes due just before the window ended get their answers back (the searches have drained).
    await sleep(250);
    const samples = await prober.finish();
    const probes = summariseProbes(
      samples,
      performance.timeOrigin + run.startedAt,
      run.windowMs,
      settings.probeIntervalMs,
    );
    const outcome: PhaseOutcome = { run, probes, ...measured };
    log(describePhase(outcome));
    return outcome;
  } finally {
    await prober.stop();
    agent.destroy();
  }
}

function describePhase(phase: PhaseOutcome): string {
  const { run, probes } = phase;
  const sorted = [...run.latencies].sort((a, b) => a - b);
  return [
    `${run.clients} client(s): ${run.perSecond.toFixed(1)} searches/s`,
    `p50 ${ms(percentile(sorted, 0.5))} p95 ${ms(percentile(sorted, 0.95))} p99 ${ms(percentile(sorted, 0.99))} max ${ms(sorted.at(-1) ?? Number.NaN)} ms`,
    `${run.slow} over ${TARGET.slowMs / 1000} s, ${run.errors} errors${run.errors > 0 ? ` (${run.errorSamples[0]})` : ''}`,
    `/healthz ${probes.answered}/${probes.sent} answered, p50 ${ms(probes.p50)} p99 ${ms(probes.p99)} max ${ms(probes.max)} ms`,
    phase.service === undefined
      ? 'service CPU unknown'
      : `service CPU: main thread ${phase.service.mainCores.toFixed(2)}, busiest other thread ${phase.service.busiestOtherCores.toFixed(2)}, all ${phase.service.totalCores.toFixed(2)} cores`,
    `this process ${phase.benchCores.toFixed(2)} cores, event-loop delay p99 ${ms(phase.benchLoopDelayP99Ms)} ms`,
    `rest of the machine ${phase.otherCores === undefined ? 'unknown' : phase.otherCores.toFixed(2)} cores`,
  ].join('; ');
}

/** Milliseconds for a report: whole from 100 ms up, else to 0.1 ms; an unanswered probe as such. */
function ms(value: number): string {
  if (value === Number.POSITIVE_INFINITY) return `> ${formatNumber(PROBE_TIMEOUT_MS)} (unanswered)`;
  if (Number.isNaN(value)) return '–';
  return value >= 100 ? formatNumber(value) : value.toFixed(1);
}

// ---------------------------------------------------------------------------------------------
// One database: a fresh service, SciFact uploaded and indexed, then the two phases.
// ---------------------------------------------------------------------------------------------

interface DatabaseOutcome {
  readonly database: DatabaseName;
  readonly documents: number;
  readonly chunks: number;
  readonly indexingSeconds: number;
  readonly single: PhaseOutcome;
  readonly concurrent: PhaseOutcome;
}

async function measureOn(
  settings: SearchLoadSettings,
  available: AvailableDatabases,
  name: DatabaseName,
  corpus: ReturnType<typeof loadScifact>,
  queries: readonly ScifactQuery[],
): Promise<DatabaseOutcome> {
  const label = DATABASE_LABEL[name];
  const log = (message: string) => progress(`${label}: ${message}`);
  const database = await createBenchDatabase(name, 'bench_search_load', available.adminUrl, log);
  // The database's thread writes a profile of its own too.
  const nodeArgs = cpuProfileArgs(
    settings.cpuProfileDir === undefined ? undefined : path.join(settings.cpuProfileDir, name),
  );
  let service: RunningServer | undefined;
  const stopService = deferCleanup(async () => {
    await service?.stop();
  });
  try {
    log('starting the service (no embeddings: the embedded default, lexical search)');
    service = await startService(
      `service (${label})`,
      // The embedded database in its own thread (PGLITE_THREAD), the setting these targets are for.
      // info: the service says when the team's postings are in memory (every request is logged too).
      { LOG_LEVEL: 'info', PGLITE_THREAD: 'true', ...database.env },
      nodeArgs,
      settings.fromSource,
    );
    const running = service;
    const { user, documents, chunks, indexingSeconds } = await indexScifact(
      running,
      `search-load-${name}`,
      corpus.documents,
      settings,
      log,
    );

    log("waiting for the team's postings to load into the service's memory");
    await postingsInMemory(running, user.teamId, () =>
      searchOnce(running.url, user.headers, { query: 'warm', top_k: 1 }),
    );
    // The search must answer, with passages, before anything is timed.
    for (const query of queries.slice(0, 3)) {
      const { results } = await searchOnce(running.url, user.headers, {
        query: query.text,
        top_k: settings.topK,
      });
      if (results.length === 0) throw new Error(`POST /v1/search found nothing for "${query.text}"`);
    }
    const context: PhaseContext = { settings, service: running, user, queries, cursor: { next: 0 }, log };
    const single = await runPhase(context, 1);
    const concurrent = await runPhase(context, settings.clients);
    return { database: name, documents, chunks, indexingSeconds, single, concurrent };
  } finally {
    await stopService();
    await database.release();
  }
}

// ---------------------------------------------------------------------------------------------
// The report
// ---------------------------------------------------------------------------------------------

function mark(met: boolean): string {
  return met ? '✓' : '✗';
}

/** Issue #37's targets, checked on PGlite's concurrent phase. */
function targetChecks(outcome: DatabaseOutcome, clients: number): Check[] {
  const { single, concurrent } = outcome;
  const ratio = concurrent.run.perSecond / single.run.perSecond;
  const healthzMet = concurrent.probes.p99 <= TARGET.healthzP99Ms;
  const ratioMet = ratio >= TARGET.throughputRatio;
  const slowMet = concurrent.run.slow === 0;
  const errorsMet = concurrent.run.errors === 0 && concurrent.run.emptyAnswers === 0;
  return [
    {
      met: healthzMet,
      text: `\`/healthz\` p99 ≤ ${TARGET.healthzP99Ms} ms under ${clients} clients: ${ms(concurrent.probes.p99)} ms (${concurrent.probes.answered} of ${concurrent.probes.sent} probes answered) ${mark(healthzMet)}`,
    },
    {
      met: ratioMet,
      text: `searches/s ≥ ${TARGET.throughputRatio}× one client's: ${concurrent.run.perSecond.toFixed(1)} against ${single.run.perSecond.toFixed(1)}, ${ratio.toFixed(2)}× ${mark(ratioMet)}`,
    },
    {
      met: slowMet,
      text: `no search over ${TARGET.slowMs / 1000} s: ${concurrent.run.slow} over, the slowest ${ms(Math.max(...concurrent.run.latencies))} ms ${mark(slowMet)}`,
    },
    {
      met: errorsMet,
      text: `0 errors: ${concurrent.run.errors} errors${concurrent.run.errors > 0 ? ` (${concurrent.run.errorSamples.join('; ')})` : ''}${concurrent.run.emptyAnswers > 0 ? `, ${concurrent.run.emptyAnswers} answers without results` : ''} ${mark(errorsMet)}`,
    },
  ];
}

function report(
  settings: SearchLoadSettings,
  available: AvailableDatabases,
  outcomes: readonly DatabaseOutcome[],
  startedAt: Date,
): { markdown: string; checks: Check[] } {
  const searchRows: string[][] = [];
  const healthRows: string[][] = [];
  for (const outcome of outcomes) {
    const label = DATABASE_LABEL[outcome.database];
    for (const phase of [outcome.single, outcome.concurrent]) {
      const { run, probes } = phase;
      const sorted = [...run.latencies].sort((a, b) => a - b);
      const ratio =
        phase === outcome.single ? '' : `${(run.perSecond / outcome.single.run.perSecond).toFixed(2)}×`;
      searchRows.push([
        label,
        String(run.clients),
        formatNumber(run.latencies.length),
        run.perSecond.toFixed(1),
        ratio,
        ms(percentile(sorted, 0.5)),
        ms(percentile(sorted, 0.95)),
        ms(percentile(sorted, 0.99)),
        ms(sorted.at(-1) ?? Number.NaN),
        String(run.slow),
        String(run.errors),
      ]);
      healthRows.push([
        label,
        String(run.clients),
        `${formatNumber(probes.answered)} / ${formatNumber(probes.sent)}`,
        ms(probes.p50),
        ms(probes.p99),
        ms(probes.max),
        phase.service === undefined ? '' : phase.service.mainCores.toFixed(2),
        phase.service === undefined ? '' : phase.service.busiestOtherCores.toFixed(2),
        phase.service === undefined ? '' : phase.service.totalCores.toFixed(2),
        phase.benchCores.toFixed(2),
        ms(phase.benchLoopDelayP99Ms),
        phase.otherCores === undefined ? '' : phase.otherCores.toFixed(2),
      ]);
    }
  }
  const searchTable = markdownTable(
    [
      'Database',
      'clients',
      'searches',
      'searches/s',
      'vs 1 client',
      'p50 ms',
      'p95 ms',
      'p99 ms',
      'max ms',
      `over ${TARGET.slowMs / 1000} s`,
      'errors',
    ],
    searchRows,
    ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
  );
  const healthTable = markdownTable(
    [
      'Database',
      'clients',
      '`/healthz` answered / sent',
      'p50 ms',
      'p99 ms',
      'max ms',
      'service main thread (cores)',
      'busiest other thread (cores)',
      'service, all threads (cores)',
      'clients process (cores)',
      'its event-loop delay p99 ms',
      'rest of the machine (cores)',
    ],
    healthRows,
    ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
  );
  const checks: Check[] = [];
  const pglite = outcomes.find((outcome) => outcome.database === 'pglite');
  if (pglite !== undefined) checks.push(...targetChecks(pglite, settings.clients));
  const data = outcomes.map(
    (outcome) =>
      `${DATABASE_LABEL[outcome.database]}: ${formatNumber(outcome.documents)} documents, ${formatNumber(outcome.chunks)} chunks, indexed in ${outcome.indexingSeconds.toFixed(1)} s.`,
  );
  const postgres = outcomes.some((outcome) => outcome.database === 'postgres');
  const lines = [
    `## Search under load: ${settings.clients} clients with \`/healthz\` probes (\`bench/search-load\`)`,
    '',
    `Run ${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC on ${environmentLine()}.`,
    `Command: \`${commandLine(`bench:${NAME}`, `bench/${NAME}/run.ts`)}\`; took ${Math.round((Date.now() - startedAt.getTime()) / 1000)} s.`,
    ...postgresLine(available),
    '',
    "SciFact's abstracts are uploaded to `POST /v1/documents` of the service as users run it (`node dist/src/main.js`,",
    '`LOG_LEVEL=info` (to hear when the postings are in memory), `PGLITE_THREAD=true`, a fresh PGlite folder or PostgreSQL database with the default pool of 10, no embeddings: lexical',
    `search). Then, on the same running service, \`POST /v1/search\` (the ${settings.queries} SciFact test queries, cycling, \`top_k\``,
    `${settings.topK}) is sent by 1 client, then by ${settings.clients} clients at once, each phase ${settings.durationSeconds} s measured after ${settings.warmupSeconds} s of the same load.`,
    'Each client sends its next search when its last one is answered, from this process (node:http, one kept-alive',
    `agent with a socket for every client); the service runs in its own. \`searches/s\` counts the searches answered within the`,
    'window; latencies run from sending a request to having read and parsed its answer, those still in flight when the',
    `window closed included. An error is a non-200 answer or a failed request (no answer within ${SEARCH_TIMEOUT_MS / 1000} s included).`,
    `During each phase a prober in a process of its own (\`bench/indexing/prober.ts\`) sends \`GET /healthz\` every ${settings.probeIntervalMs} ms on a`,
    `fixed schedule over kept-alive connections of its own, timed from when each was due; a probe unanswered within ${PROBE_TIMEOUT_MS / 1000} s`,
    'fails, and counts in the percentiles as slower than any answered. CPU is user + system time from /proc over the',
    "window: the service's main thread (its event loop), its busiest other thread (the database's thread on PGlite;",
    `a pool thread on PostgreSQL), and all its threads; then this process, whose event-loop delay (beyond a ${LOOP_DELAY_RESOLUTION_MS} ms`,
    "timer's period) says whether the clients kept up; then the rest of the machine (/proc/stat's busy time less the",
    "service, this process and the prober: other work on this shared machine, and PostgreSQL's backends).",
    '',
    searchTable,
    '',
    healthTable,
    '',
    ...data,
    `Before PGlite ran in a thread of its own (issue #37): ${BEFORE}.`,
    '',
    `Targets (issue #37), PGlite under ${settings.clients} concurrent search clients:`,
    '',
    ...verdictLines(checks, available.skipped),
    ...(postgres ? ['', 'The PostgreSQL rows are for information: the targets are set for PGlite.'] : []),
  ];
  return { markdown: lines.join('\n'), checks };
}

async function main(): Promise<void> {
  const settings = parseSettings(process.argv.slice(2), process.env);
  await runScifactBench({
    name: NAME,
    after: 'mcp',
    settings,
    progress,
    measure: (available, database, corpus, queries) =>
      measureOn(settings, available, database, corpus, queries),
    report: (available, outcomes, startedAt) => report(settings, available, outcomes, startedAt),
  });
}

runBenchmark(NAME, main);

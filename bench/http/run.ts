// `npm run bench:http`: the service's HTTP throughput and latency against a bare fastify route
// measured in the same run, on PGlite and on PostgreSQL (with one API process, then with several).
// Writes the http section of docs/benchmarks.md. `npm run bench:http -- --help` lists the settings.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { deferCleanup, installCleanupHandlers, runBenchmark, runCleanups } from '../lib/children.js';
import { type CpuWindowResult, cpuAccountingAvailable, openCpuWindow } from '../lib/cpu.js';
import { expectJson } from '../lib/http.js';
import { type LoadResult, type LoadSpec, runLoad } from '../lib/load.js';
import { type LoadSettings, parseLoadSettings } from '../lib/options.js';
import {
  backendPids,
  createScratchDatabase,
  DEFAULT_BENCH_DATABASE_URL,
  probePostgres,
} from '../lib/postgres.js';
import { childPids, killLeftovers, processTableAvailable, waitForWorkers } from '../lib/processes.js';
import {
  commandLine,
  environmentLine,
  formatMs,
  formatNumber,
  formatPercent,
  markdownTable,
  median,
  publishSection,
  redactUrl,
} from '../lib/report.js';
import {
  buildService,
  type RunningServer,
  SERVICE_ENTRY,
  startBaseline,
  startService,
} from '../lib/service.js';

type DatabaseName = 'pglite' | 'postgres';
const DATABASE_LABEL: Record<DatabaseName, string> = { pglite: 'PGlite', postgres: 'PostgreSQL' };

/** One way of running the service: its database and its number of API processes (`API_PROCESSES`). */
interface Variant {
  readonly database: DatabaseName;
  readonly apiProcesses: number;
}

function variantLabel(variant: Variant): string {
  const database = DATABASE_LABEL[variant.database];
  return variant.apiProcesses === 1 ? database : `${database}, ${variant.apiProcesses} API processes`;
}

/** For file names: `postgres`, `postgres-2-processes`. */
function variantSlug(variant: Variant): string {
  return variant.apiProcesses === 1
    ? variant.database
    : `${variant.database}-${variant.apiProcesses}-processes`;
}

/** Each database with one API process; PostgreSQL also with `apiProcesses` (PGlite serves one process). */
function plannedVariants(databases: readonly DatabaseName[], apiProcesses: number): Variant[] {
  return databases.flatMap((database) =>
    database === 'postgres' && apiProcesses > 1
      ? [
          { database, apiProcesses: 1 },
          { database, apiProcesses },
        ]
      : [{ database, apiProcesses: 1 }],
  );
}

const CHAT_ID = 'bench';
const WRITE_SCENARIO = 'PUT /v1/chats/{id}';

/** The issue's targets for the chat write, as a share of the baseline's req/s (whatever the API processes). */
const TARGETS: Record<DatabaseName, { minRatio: number; maxP99Ms: number | undefined }> = {
  postgres: { minRatio: 0.25, maxP99Ms: 50 },
  pglite: { minRatio: 0.1, maxP99Ms: undefined },
};

type Request = Pick<LoadSpec, 'url' | 'method' | 'headers' | 'body'>;

interface Measurement {
  readonly scenario: string;
  readonly variant: Variant | 'baseline';
  readonly result: LoadResult;
  readonly cpu: CpuWindowResult | undefined;
}

interface Skipped {
  readonly database: DatabaseName;
  readonly reason: string;
}

/** Which processes to account CPU time to, asked after the warm-up (when the pool is full). */
interface CpuTargets {
  /** The server's processes: one, or a node:cluster primary and its workers (empty: not accounted). */
  readonly serverPids: () => readonly number[];
  readonly databasePids?: () => Promise<number[]>;
}

function subjectLabel(subject: Measurement['variant']): string {
  return subject === 'baseline' ? 'baseline' : variantLabel(subject);
}

/** A 10-message chat, each message 200 characters, as a front end saves it. */
function chatBody(): string {
  const start = Date.parse('2025-01-01T09:00:00Z');
  const sentence =
    'Which of our onboarding documents explains how expense reports are approved, and who signs off on travel above the usual limit? ';
  const messages = Array.from({ length: 10 }, (_, index) => ({
    role: index % 2 === 0 ? 'user' : 'assistant',
    content: `Message ${index + 1}: ${sentence.repeat(2)}`.slice(0, 200),
    timestamp: new Date(start + index * 30_000).toISOString(),
    chat_id: CHAT_ID,
  }));
  return JSON.stringify({ chat_id: CHAT_ID, messages });
}

function progress(message: string): void {
  process.stderr.write(`[bench:http] ${message}\n`);
}

function describe(measurement: Measurement): string {
  const { result, cpu } = measurement;
  const cpuText =
    cpu === undefined
      ? ''
      : `, server CPU ${Math.round(cpu.serverUs)} µs/req${cpu.databaseUs === undefined ? '' : `, PostgreSQL CPU ${Math.round(cpu.databaseUs)} µs/req`}${cpu.otherCores === undefined ? '' : `, other processes ${cpu.otherCores.toFixed(2)} cores`}`;
  return `${formatNumber(result.requestsPerSecond)} req/s, p50 ${formatMs(result.latencyP50Ms)} ms, p99 ${formatMs(result.latencyP99Ms)} ms, non-2xx ${result.non2xx}, errors ${result.errors}, timeouts ${result.timeouts}${cpuText}`;
}

async function measure(
  settings: LoadSettings,
  scenario: string,
  variant: Measurement['variant'],
  request: Request,
  targets: CpuTargets,
): Promise<Measurement> {
  const on = `${scenario} on ${subjectLabel(variant)}`;
  progress(`${on}: ${settings.warmupSeconds} s warm-up, ${settings.durationSeconds} s measured…`);
  let closeWindow: ReturnType<typeof openCpuWindow> | undefined;
  let cpu: CpuWindowResult | undefined;
  let serverPids: readonly number[] = [];
  const result = await runLoad(
    {
      ...request,
      connections: settings.connections,
      warmupSeconds: settings.warmupSeconds,
      durationSeconds: settings.durationSeconds,
      timeoutSeconds: settings.timeoutSeconds,
    },
    {
      beforeMeasuring: async () => {
        if (!cpuAccountingAvailable()) return;
        serverPids = targets.serverPids();
        if (serverPids.length === 0) return;
        const databasePids = await targets.databasePids?.();
        closeWindow = openCpuWindow(serverPids, databasePids);
      },
      // The load generator has exited by now and reported its own CPU time.
      afterMeasuring: (measured) => {
        cpu = closeWindow?.(measured.loadGeneratorCpuSeconds, measured.ok + measured.non2xx);
        if (cpu === undefined) return;
        // A process that ended meanwhile took its CPU time with it: better no figure than a low one.
        const now = targets.serverPids();
        if (now.length !== serverPids.length || now.some((pid) => !serverPids.includes(pid))) {
          progress(
            `${on}: the server processes changed while measured (${serverPids.join(', ')} → ${now.join(', ')}): CPU not reported`,
          );
          cpu = undefined;
        }
      },
    },
  );
  const measurement = { scenario, variant, result, cpu };
  progress(`${on}: ${describe(measurement)}`);
  const byPid = measurement.cpu?.serverSecondsByPid;
  if (byPid !== undefined && byPid.size > 1) {
    const shares = [...byPid].map(([pid, seconds]) => `${pid} ${seconds.toFixed(2)} s`);
    progress(`${on}: server CPU by process (primary first): ${shares.join(', ')}`);
  }
  if (
    result.warmup !== undefined &&
    result.warmup.non2xx + result.warmup.errors + result.warmup.timeouts > 0
  ) {
    progress(
      `${on}: warm-up had ${result.warmup.non2xx} non-2xx, ${result.warmup.errors} errors, ${result.warmup.timeouts} timeouts`,
    );
  }
  return measurement;
}

/** Starts the service one way, on a fresh database, sets up a user and a chat, and measures the three routes. */
async function benchVariant(
  settings: LoadSettings,
  variant: Variant,
  postgresUrl: string,
): Promise<Measurement[]> {
  const { database } = variant;
  const env: Record<string, string> = { LOG_LEVEL: 'warn' };
  if (variant.apiProcesses > 1) env.API_PROCESSES = String(variant.apiProcesses);
  let release: () => Promise<void>;
  let databasePids: (() => Promise<number[]>) | undefined;
  if (database === 'pglite') {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-http-'));
    release = deferCleanup(() => rmSync(dataDir, { recursive: true, force: true }));
    env.DATA_DIR = dataDir;
  } else {
    const scratch = await createScratchDatabase(postgresUrl, 'bench_http');
    release = deferCleanup(async () => {
      await scratch.drop();
      progress(`PostgreSQL: dropped database ${scratch.name}`);
    });
    progress(`PostgreSQL: created database ${scratch.name}`);
    env.DATABASE_URL = scratch.url;
    env.ENCRYPTION_KEY = randomBytes(32).toString('hex');
    databasePids = () => backendPids(postgresUrl, scratch.name);
  }
  try {
    return await measureService(settings, variant, env, databasePids);
  } finally {
    await release();
  }
}

async function measureService(
  settings: LoadSettings,
  variant: Variant,
  env: Record<string, string>,
  databasePids: (() => Promise<number[]>) | undefined,
): Promise<Measurement[]> {
  const label = variantLabel(variant);
  const slug = variantSlug(variant);
  const clustered = variant.apiProcesses > 1;
  const nodeArgs: string[] = [];
  if (settings.cpuProfileDir !== undefined) {
    const directory = path.resolve(settings.cpuProfileDir);
    mkdirSync(directory, { recursive: true });
    if (clustered) {
      // The workers inherit these arguments: each writes its own profile (Node's default name holds the pid).
      const own = path.join(directory, `service-${slug}`);
      mkdirSync(own, { recursive: true });
      nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${own}`);
    } else {
      nodeArgs.push(
        '--cpu-prof',
        `--cpu-prof-dir=${directory}`,
        `--cpu-prof-name=service-${slug}.cpuprofile`,
      );
    }
  }
  progress(`${label}: starting the service`);
  const service: RunningServer = await startService(`service (${slug})`, env, nodeArgs);
  const primaryPid = service.child.process.pid;
  // Every worker seen, to make sure none outlives the service.
  const workersSeen = new Set<number>();
  const stopService = deferCleanup(async () => {
    await service.stop();
    const killed = await killLeftovers([...workersSeen], SERVICE_ENTRY);
    if (killed.length > 0) progress(`${label}: killed worker processes left running: ${killed.join(', ')}`);
  });
  try {
    let serverPids: () => readonly number[] = () => (primaryPid === undefined ? [] : [primaryPid]);
    if (clustered) {
      if (primaryPid !== undefined && processTableAvailable()) {
        // /readyz answers once the first worker listens: wait for all of them to serve.
        const workers = await waitForWorkers(primaryPid, variant.apiProcesses, `${service.url}/healthz`);
        for (const pid of workers) workersSeen.add(pid);
        progress(
          `${label}: primary ${primaryPid}, ${workers.length} workers serving (${workers.join(', ')})`,
        );
        serverPids = () => {
          const current = childPids(primaryPid);
          for (const pid of current) workersSeen.add(pid);
          if (current.length !== variant.apiProcesses) {
            progress(`${label}: ${current.length} worker processes, not ${variant.apiProcesses}`);
          }
          return [primaryPid, ...current];
        };
      } else {
        progress(`${label}: no /proc to find the worker processes: CPU not accounted`);
        serverPids = () => [];
        await new Promise((resolve) => setTimeout(resolve, 5_000));
      }
    }
    const registration = (await expectJson([201], 'POST', `${service.url}/v2/users/register`, {
      type: 'oauth',
      provider: 'google',
      provider_account_id: `bench-${slug}`,
      email: `bench-${slug}@example.com`,
      name: 'Benchmark User',
    })) as { access_token?: unknown };
    if (typeof registration.access_token !== 'string') throw new Error('registration gave no access_token');
    const headers = { authorization: `Bearer ${registration.access_token}` };
    const body = chatBody();
    const chatUrl = `${service.url}/v1/chats/${CHAT_ID}`;
    await expectJson([201], 'PUT', chatUrl, JSON.parse(body), headers);
    // The measured requests must succeed as sent: try one of each before loading.
    await expectJson([200], 'PUT', chatUrl, JSON.parse(body), headers);
    const stored = (await expectJson([200], 'GET', chatUrl, undefined, headers)) as { messages?: unknown[] };
    if (stored.messages?.length !== 10) throw new Error('the stored chat does not have its 10 messages');

    const targets: CpuTargets = { serverPids, databasePids };
    const scenarios: [string, Request][] = [
      ['GET /healthz', { url: `${service.url}/healthz`, method: 'GET', headers: {}, body: undefined }],
      [
        WRITE_SCENARIO,
        { url: chatUrl, method: 'PUT', headers: { ...headers, 'content-type': 'application/json' }, body },
      ],
      ['GET /v1/chats/{id}', { url: chatUrl, method: 'GET', headers, body: undefined }],
    ];
    const measurements: Measurement[] = [];
    for (const [scenario, request] of scenarios) {
      measurements.push(await measure(settings, scenario, variant, request, targets));
    }
    return measurements;
  } finally {
    await stopService();
    progress(`${label}: service stopped`);
  }
}

interface TargetCheck {
  readonly variant: Variant;
  readonly met: boolean;
  readonly text: string;
}

function checkTarget(variant: Variant, result: LoadResult, baselineRps: number): TargetCheck {
  const target = TARGETS[variant.database];
  const ratio = result.requestsPerSecond / baselineRps;
  const failures = result.non2xx + result.errors + result.timeouts;
  const ratioMet = ratio >= target.minRatio;
  const p99Met = target.maxP99Ms === undefined || result.latencyP99Ms <= target.maxP99Ms;
  const met = ratioMet && p99Met && failures === 0;
  const parts = [
    `${formatPercent(ratio)} of the baseline's req/s (target ≥ ${formatPercent(target.minRatio)}) ${ratioMet ? '✓' : '✗'}`,
  ];
  if (target.maxP99Ms !== undefined) {
    parts.push(
      `p99 ${formatMs(result.latencyP99Ms)} ms (target ≤ ${target.maxP99Ms} ms) ${p99Met ? '✓' : '✗'}`,
    );
  }
  parts.push(`${failures} non-2xx, errors or timeouts (target 0) ${failures === 0 ? '✓' : '✗'}`);
  return {
    variant,
    met,
    text: `${WRITE_SCENARIO} on ${variantLabel(variant)}: **${met ? 'met' : 'not met'}**: ${parts.join('; ')}`,
  };
}

interface RunContext {
  readonly settings: LoadSettings;
  readonly postgresUrl: string;
  readonly postgresVersion: string | undefined;
  readonly startedAt: Date;
}

function postgresHost(url: string): string {
  try {
    const parsed = new URL(url);
    const local = ['127.0.0.1', 'localhost', '[::1]'].includes(parsed.hostname);
    return `${parsed.host}${local ? ' (this machine)' : ''}`;
  } catch {
    return 'an unparsable URL';
  }
}

function report(
  context: RunContext,
  baselines: readonly Measurement[],
  measurements: readonly Measurement[],
  skipped: readonly Skipped[],
): { markdown: string; checks: TargetCheck[] } {
  const { settings } = context;
  const baselineRps = median(baselines.map((baseline) => baseline.result.requestsPerSecond));
  const checks: TargetCheck[] = [];
  const row = (measurement: Measurement, label = measurement.scenario): string[] => {
    const { result, cpu } = measurement;
    let target = '';
    if (measurement.variant !== 'baseline' && measurement.scenario === WRITE_SCENARIO) {
      const check = checkTarget(measurement.variant, result, baselineRps);
      checks.push(check);
      target = check.met ? 'met' : '**not met**';
    }
    return [
      label,
      measurement.variant === 'baseline' ? '–' : variantLabel(measurement.variant),
      formatNumber(result.requestsPerSecond),
      formatPercent(result.requestsPerSecond / baselineRps),
      formatMs(result.latencyP50Ms),
      formatMs(result.latencyP99Ms),
      String(result.non2xx),
      `${result.errors} / ${result.timeouts}`,
      cpu === undefined ? 'n/a' : formatNumber(cpu.serverUs),
      cpu?.databaseUs === undefined ? '–' : formatNumber(cpu.databaseUs),
      cpu?.otherCores === undefined ? 'n/a' : cpu.otherCores.toFixed(2),
      target,
    ];
  };
  const table = markdownTable(
    [
      'Scenario',
      'Database',
      'req/s',
      'vs baseline',
      'p50 ms',
      'p99 ms',
      'non-2xx',
      'errors / timeouts',
      'server CPU µs/req',
      'PostgreSQL CPU µs/req',
      'other load (cores)',
      'Target',
    ],
    [
      ...baselines.map((baseline, index) => row(baseline, `baseline \`GET /\` (run ${index + 1})`)),
      ...measurements.map((measurement) => row(measurement)),
    ],
    ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'l'],
  );
  const others = [...baselines, ...measurements].flatMap((measurement) =>
    measurement.cpu?.otherCores === undefined ? [] : [measurement.cpu.otherCores],
  );
  const busiest = others.length === 0 ? undefined : Math.max(...others);
  const cores = os.cpus().length;
  const clustered = measurements.flatMap((measurement) =>
    measurement.variant !== 'baseline' && measurement.variant.apiProcesses > 1 ? [measurement.variant] : [],
  )[0];
  const clusteredText =
    clustered === undefined
      ? []
      : [
          '',
          `\`${variantLabel(clustered)}\` is the same service with \`API_PROCESSES=${clustered.apiProcesses}\` on another fresh database: a`,
          `node:cluster primary accepts the connections and hands them in turn to ${clustered.apiProcesses} worker processes, each with`,
          'its own pool of 10. Its `server CPU` sums the primary and its workers (found from /proc after the warm-up), its',
          '`PostgreSQL CPU` the backends of all the pools. The baseline is a single process, and this machine has',
          `${cores} cores, which the API processes share with autocannon and PostgreSQL: that row's \`vs baseline\`, and the`,
          `target checked on it, compare ${clustered.apiProcesses} processes with 1 on the same ${cores} cores, not the gain that more cores would give.`,
        ];
  const lines = [
    '## HTTP: the service against a bare fastify route (`bench/http`)',
    '',
    `Run ${context.startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC on ${environmentLine()}.`,
    `Command: \`${commandLine('bench:http', 'bench/http/run.ts')}\`.`,
    ...(context.postgresVersion === undefined
      ? []
      : [`PostgreSQL ${context.postgresVersion} at ${postgresHost(context.postgresUrl)}.`]),
    ...(busiest !== undefined && busiest >= 0.2
      ? [
          `Other processes used up to ${busiest.toFixed(2)} of the ${cores} cores during the measured seconds: compare ratios and CPU per request rather than req/s.`,
        ]
      : []),
    '',
    `${settings.connections} connections; each scenario has ${settings.warmupSeconds} s of warm-up, then ${settings.durationSeconds} s measured.`,
    'autocannon runs in a child process; the service in another (`node dist/src/main.js`, `LOG_LEVEL=warn`; PGlite in',
    'a fresh temporary `DATA_DIR`, PostgreSQL in a fresh database with the default pool of 10); the baseline, a bare',
    'fastify app answering `{"hello":"world"}` on `GET /`, in a third, measured before each service run and at the end.',
    '`req/s` is the mean of the per-second counts; `vs baseline` divides it by the median of the baseline runs',
    `(${formatNumber(baselineRps)} req/s); latencies have autocannon's 1 ms resolution. The PUT sends the same`,
    `10-message chat (${Buffer.byteLength(chatBody())} bytes) with a bearer token each time, replacing the chat's messages.`,
    '`CPU µs/req` is the CPU time (user + system, from /proc) of the server process(es), and of the PostgreSQL backends',
    'serving its database, over the measured seconds, divided by the responses; the PGlite database runs inside the',
    'server process. Other load on the machine moves it less than req/s. `other load` is the busy CPU time of the',
    'whole machine (/proc/stat) not used by the server, its backends, autocannon or this script, per second.',
    ...clusteredText,
    '',
    table,
    '',
    'Targets (issue): with no non-2xx under 50 connections, the chat write reaches ≥ 25 % of the',
    "baseline's req/s with p99 ≤ 50 ms on PostgreSQL (checked for each number of API processes), and ≥ 10 % on PGlite.",
    '',
    ...checks.map((check) => `- ${check.text}`),
    ...skipped.map((skip) => `- ${DATABASE_LABEL[skip.database]}: skipped, ${skip.reason}.`),
  ];
  if (settings.connections !== 50) {
    lines.push('', `Run with ${settings.connections} connections, not the 50 the targets name.`);
  }
  if (skipped.some((skip) => skip.database === 'postgres')) {
    lines.push(
      '',
      `Set BENCH_DATABASE_URL (default ${redactUrl(DEFAULT_BENCH_DATABASE_URL)}) to run on PostgreSQL.`,
    );
  }
  const postgresRan = measurements.some(
    (measurement) => measurement.variant !== 'baseline' && measurement.variant.database === 'postgres',
  );
  if (postgresRan && clustered === undefined) {
    lines.push(
      '',
      `Run with \`--api-processes ${settings.apiProcesses}\`: no PostgreSQL row with several API processes (\`API_PROCESSES\`).`,
    );
  }
  return { markdown: lines.join('\n'), checks };
}

async function main(): Promise<void> {
  const settings = parseLoadSettings(process.argv.slice(2), process.env);
  const postgresUrl = process.env.BENCH_DATABASE_URL ?? DEFAULT_BENCH_DATABASE_URL;
  const startedAt = new Date();
  // Each variant: a baseline run and three scenarios; one more baseline run at the end.
  const runs = plannedVariants(settings.databases, settings.apiProcesses).length * 4 + 1;
  const deadlineMs = (runs * (settings.warmupSeconds + settings.durationSeconds + 15) + 180) * 1000;
  const uninstall = installCleanupHandlers(deadlineMs);
  try {
    const skipped: Skipped[] = [];
    let postgresVersion: string | undefined;
    if (settings.databases.includes('postgres')) {
      const probe = await probePostgres(postgresUrl);
      if (probe.ok) postgresVersion = probe.version;
      else {
        const reason = `${redactUrl(postgresUrl)} is not reachable (${probe.reason})`;
        skipped.push({ database: 'postgres', reason });
        progress(`PostgreSQL: skipped, ${reason}`);
      }
    }
    const databases = settings.databases.filter(
      (database) => !skipped.some((skip) => skip.database === database),
    );
    if (settings.build) {
      progress('npm run build');
      await buildService();
    }
    progress('starting the baseline');
    const baseline = await startBaseline();
    const baselineRequest: Request = { url: `${baseline.url}/`, method: 'GET', headers: {}, body: undefined };
    const baselinePid = baseline.child.process.pid;
    const baselineTargets: CpuTargets = {
      serverPids: () => (baselinePid === undefined ? [] : [baselinePid]),
    };
    const measureBaseline = () =>
      measure(settings, 'baseline GET /', 'baseline', baselineRequest, baselineTargets);

    const baselines: Measurement[] = [];
    const measurements: Measurement[] = [];
    for (const variant of plannedVariants(databases, settings.apiProcesses)) {
      baselines.push(await measureBaseline());
      measurements.push(...(await benchVariant(settings, variant, postgresUrl)));
    }
    baselines.push(await measureBaseline());
    await baseline.stop();

    const context = { settings, postgresUrl, postgresVersion, startedAt };
    publishSection(
      'http',
      report(context, baselines, measurements, skipped),
      {
        write: settings.write,
        withheld:
          settings.cpuProfileDir === undefined
            ? undefined
            : `CPU profiles in ${path.resolve(settings.cpuProfileDir)} (profiling slows the service)`,
      },
      progress,
    );
  } finally {
    await runCleanups();
    uninstall();
  }
}

runBenchmark('http', main);

// `npm run bench:http`: the service's HTTP throughput and latency against a bare fastify route
// measured in the same run, on PGlite and on PostgreSQL. Writes the http section of
// docs/benchmarks.md. `npm run bench:http -- --help` lists the settings.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { deferCleanup, installCleanupHandlers, runCleanups } from '../lib/children.js';
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
import {
  commandLine,
  environmentLine,
  formatMs,
  formatNumber,
  formatPercent,
  markdownTable,
  median,
  redactUrl,
  writeSection,
} from '../lib/report.js';
import { buildService, type RunningServer, startBaseline, startService } from '../lib/service.js';

type DatabaseName = 'pglite' | 'postgres';
const DATABASE_LABEL: Record<DatabaseName, string> = { pglite: 'PGlite', postgres: 'PostgreSQL' };

const CHAT_ID = 'bench';
const WRITE_SCENARIO = 'PUT /v1/chats/{id}';

/** The issue's targets for the chat write, as a share of the baseline's req/s. */
const TARGETS: Record<DatabaseName, { minRatio: number; maxP99Ms: number | undefined }> = {
  postgres: { minRatio: 0.25, maxP99Ms: 50 },
  pglite: { minRatio: 0.1, maxP99Ms: undefined },
};

type Request = Pick<LoadSpec, 'url' | 'method' | 'headers' | 'body'>;

interface Measurement {
  readonly scenario: string;
  readonly database: DatabaseName | 'baseline';
  readonly result: LoadResult;
  readonly cpu: CpuWindowResult | undefined;
}

interface Skipped {
  readonly database: DatabaseName;
  readonly reason: string;
}

/** Which processes to account CPU time to, asked after the warm-up (when the pool is full). */
interface CpuTargets {
  readonly serverPid: number | undefined;
  readonly databasePids?: () => Promise<number[]>;
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
  database: Measurement['database'],
  request: Request,
  targets: CpuTargets,
): Promise<Measurement> {
  progress(
    `${scenario} on ${database}: ${settings.warmupSeconds} s warm-up, ${settings.durationSeconds} s measured…`,
  );
  let closeWindow: ReturnType<typeof openCpuWindow> | undefined;
  let cpu: CpuWindowResult | undefined;
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
        if (!cpuAccountingAvailable() || targets.serverPid === undefined) return;
        const databasePids = await targets.databasePids?.();
        closeWindow = openCpuWindow([targets.serverPid], databasePids);
      },
      // The load generator has exited by now and reported its own CPU time.
      afterMeasuring: (measured) => {
        cpu = closeWindow?.(measured.loadGeneratorCpuSeconds, measured.ok + measured.non2xx);
      },
    },
  );
  const measurement = { scenario, database, result, cpu };
  progress(`${scenario} on ${database}: ${describe(measurement)}`);
  if (
    result.warmup !== undefined &&
    result.warmup.non2xx + result.warmup.errors + result.warmup.timeouts > 0
  ) {
    progress(
      `${scenario} on ${database}: warm-up had ${result.warmup.non2xx} non-2xx, ${result.warmup.errors} errors, ${result.warmup.timeouts} timeouts`,
    );
  }
  return measurement;
}

/** Starts the service on one database, sets up a user and a chat, and measures the three routes. */
async function benchDatabase(
  settings: LoadSettings,
  database: DatabaseName,
  postgresUrl: string,
): Promise<Measurement[]> {
  const env: Record<string, string> = { LOG_LEVEL: 'warn' };
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
    return await measureService(settings, database, env, databasePids);
  } finally {
    await release();
  }
}

async function measureService(
  settings: LoadSettings,
  database: DatabaseName,
  env: Record<string, string>,
  databasePids: (() => Promise<number[]>) | undefined,
): Promise<Measurement[]> {
  const nodeArgs: string[] = [];
  if (settings.cpuProfileDir !== undefined) {
    const directory = path.resolve(settings.cpuProfileDir);
    mkdirSync(directory, { recursive: true });
    nodeArgs.push(
      '--cpu-prof',
      `--cpu-prof-dir=${directory}`,
      `--cpu-prof-name=service-${database}.cpuprofile`,
    );
  }
  progress(`${DATABASE_LABEL[database]}: starting the service`);
  const service: RunningServer = await startService(`service (${database})`, env, nodeArgs);
  try {
    const registration = (await expectJson([201], 'POST', `${service.url}/v2/users/register`, {
      type: 'oauth',
      provider: 'google',
      provider_account_id: `bench-${database}`,
      email: `bench-${database}@example.com`,
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

    const targets: CpuTargets = { serverPid: service.child.process.pid, databasePids };
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
      measurements.push(await measure(settings, scenario, database, request, targets));
    }
    return measurements;
  } finally {
    await service.stop();
    progress(`${DATABASE_LABEL[database]}: service stopped`);
  }
}

interface TargetCheck {
  readonly database: DatabaseName;
  readonly met: boolean;
  readonly text: string;
}

function checkTarget(database: DatabaseName, result: LoadResult, baselineRps: number): TargetCheck {
  const target = TARGETS[database];
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
    database,
    met,
    text: `${WRITE_SCENARIO} on ${DATABASE_LABEL[database]}: **${met ? 'met' : 'not met'}**: ${parts.join('; ')}`,
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
    if (measurement.database !== 'baseline' && measurement.scenario === WRITE_SCENARIO) {
      const check = checkTarget(measurement.database, result, baselineRps);
      checks.push(check);
      target = check.met ? 'met' : '**not met**';
    }
    return [
      label,
      measurement.database === 'baseline' ? '–' : DATABASE_LABEL[measurement.database],
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
          `Other processes used up to ${busiest.toFixed(2)} of the ${os.cpus().length} cores during the measured seconds: compare ratios and CPU per request rather than req/s.`,
        ]
      : []),
    '',
    `${settings.connections} connections; each scenario has ${settings.warmupSeconds} s of warm-up, then ${settings.durationSeconds} s measured.`,
    'autocannon runs in a child process; the service in another (`node dist/src/main.js`, `LOG_LEVEL=warn`; PGlite in',
    'a fresh temporary `DATA_DIR`, PostgreSQL in a fresh database with the default pool of 10); the baseline, a bare',
    'fastify app answering `{"hello":"world"}` on `GET /`, in a third, measured before each database and at the end.',
    '`req/s` is the mean of the per-second counts; `vs baseline` divides it by the median of the baseline runs',
    `(${formatNumber(baselineRps)} req/s); latencies have autocannon's 1 ms resolution. The PUT sends the same`,
    `10-message chat (${Buffer.byteLength(chatBody())} bytes) with a bearer token each time, replacing the chat's messages.`,
    '`CPU µs/req` is the CPU time (user + system, from /proc) of the server process, and of the PostgreSQL backends',
    'serving its database, over the measured seconds, divided by the responses; the PGlite database runs inside the',
    'server process. Other load on the machine moves it less than req/s. `other load` is the busy CPU time of the',
    'whole machine (/proc/stat) not used by the server, its backends, autocannon or this script, per second.',
    '',
    table,
    '',
    'Targets (issue): with no non-2xx under 50 connections, the chat write reaches ≥ 25 % of the',
    "baseline's req/s with p99 ≤ 50 ms on PostgreSQL, and ≥ 10 % on PGlite.",
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
  lines.push(
    '',
    'The service has no option to run several worker processes (`src/main.ts`), so there is no multi-process row.',
  );
  return { markdown: lines.join('\n'), checks };
}

async function main(): Promise<void> {
  const settings = parseLoadSettings(process.argv.slice(2), process.env);
  const postgresUrl = process.env.BENCH_DATABASE_URL ?? DEFAULT_BENCH_DATABASE_URL;
  const startedAt = new Date();
  const runs = settings.databases.length * 4 + 1;
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
    const baselineTargets: CpuTargets = { serverPid: baseline.child.process.pid };
    const measureBaseline = () =>
      measure(settings, 'baseline GET /', 'baseline', baselineRequest, baselineTargets);

    const baselines: Measurement[] = [];
    const measurements: Measurement[] = [];
    for (const database of databases) {
      baselines.push(await measureBaseline());
      measurements.push(...(await benchDatabase(settings, database, postgresUrl)));
    }
    baselines.push(await measureBaseline());
    await baseline.stop();

    const context = { settings, postgresUrl, postgresVersion, startedAt };
    const { markdown, checks } = report(context, baselines, measurements, skipped);
    process.stdout.write(`\n${markdown}\n\n`);
    if (settings.cpuProfileDir !== undefined) {
      progress(
        `CPU profiles in ${path.resolve(settings.cpuProfileDir)}; docs/benchmarks.md left as it was (profiling slows the service)`,
      );
    } else if (!settings.write) {
      progress('--no-write: docs/benchmarks.md left as it was');
    } else {
      writeSection('http', markdown);
      progress('wrote the http section of docs/benchmarks.md');
    }
    if (checks.some((check) => !check.met)) progress('some targets are not met (see above)');
  } finally {
    await runCleanups();
    uninstall();
  }
}

main().catch(async (error: unknown) => {
  process.stderr.write(
    `bench:http failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  await runCleanups();
  process.exit(1);
});

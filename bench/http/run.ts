// `npm run bench:http`: the service's HTTP throughput and latency against a bare fastify route,
// measured in the same run, on PGlite and on PostgreSQL. See docs/benchmarks.md.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { deferCleanup, installCleanupHandlers, runCleanups } from '../lib/children.js';
import { expectJson } from '../lib/http.js';
import { type LoadResult, type LoadSpec, runLoad } from '../lib/load.js';
import { type LoadSettings, parseLoadSettings } from '../lib/options.js';
import { createScratchDatabase, DEFAULT_BENCH_DATABASE_URL, unreachableReason } from '../lib/postgres.js';
import {
  commandLine,
  environmentLine,
  formatMs,
  formatNumber,
  formatPercent,
  markdownTable,
  redactUrl,
  writeSection,
} from '../lib/report.js';
import { buildService, type RunningServer, startBaseline, startService } from '../lib/service.js';

type DatabaseName = 'pglite' | 'postgres';
const DATABASE_LABEL: Record<DatabaseName, string> = { pglite: 'PGlite', postgres: 'PostgreSQL' };

const CHAT_ID = 'bench';

/** The targets for the chat write, as a share of the baseline's req/s. */
const TARGETS: Record<DatabaseName, { minRatio: number; maxP99Ms: number | undefined }> = {
  postgres: { minRatio: 0.25, maxP99Ms: 50 },
  pglite: { minRatio: 0.1, maxP99Ms: undefined },
};

interface Measurement {
  readonly scenario: string;
  readonly database: DatabaseName | 'baseline';
  readonly result: LoadResult;
}

interface Skipped {
  readonly database: DatabaseName;
  readonly reason: string;
}

/** A 10-message chat, each message about 200 characters, as a front end saves it. */
function chatBody(): string {
  const start = Date.parse('2025-01-01T09:00:00Z');
  const messages = Array.from({ length: 10 }, (_, index) => ({
    role: index % 2 === 0 ? 'user' : 'assistant',
    content:
      `Message ${index + 1}: ${'Which of our onboarding documents explains how expense reports are approved, and who signs off on travel above the usual limit? '.repeat(2)}`.slice(
        0,
        200,
      ),
    timestamp: new Date(start + index * 30_000).toISOString(),
    chat_id: CHAT_ID,
  }));
  return JSON.stringify({ chat_id: CHAT_ID, messages });
}

function loadSpec(
  settings: LoadSettings,
  request: Pick<LoadSpec, 'url' | 'method' | 'headers' | 'body'>,
): LoadSpec {
  return {
    ...request,
    connections: settings.connections,
    warmupSeconds: settings.warmupSeconds,
    durationSeconds: settings.durationSeconds,
    timeoutSeconds: settings.timeoutSeconds,
  };
}

function progress(message: string): void {
  process.stderr.write(`[bench:http] ${message}\n`);
}

function describe(result: LoadResult): string {
  return `${formatNumber(result.requestsPerSecond)} req/s, p50 ${formatMs(result.latencyP50Ms)} ms, p99 ${formatMs(result.latencyP99Ms)} ms, non-2xx ${result.non2xx}, errors ${result.errors}, timeouts ${result.timeouts}`;
}

async function measure(
  settings: LoadSettings,
  scenario: string,
  database: Measurement['database'],
  request: Pick<LoadSpec, 'url' | 'method' | 'headers' | 'body'>,
): Promise<Measurement> {
  progress(`${scenario} on ${database}: measuring…`);
  const result = await runLoad(loadSpec(settings, request));
  progress(`${scenario} on ${database}: ${describe(result)}`);
  return { scenario, database, result };
}

/** Starts the service on one database, sets up a user and a chat, and measures the three routes. */
async function benchDatabase(
  settings: LoadSettings,
  database: DatabaseName,
  postgresUrl: string,
): Promise<Measurement[] | Skipped> {
  const env: Record<string, string> = { LOG_LEVEL: 'warn' };
  let release: () => Promise<void>;
  if (database === 'pglite') {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-http-'));
    release = deferCleanup(() => rmSync(dataDir, { recursive: true, force: true }));
    env.DATA_DIR = dataDir;
  } else {
    const reason = await unreachableReason(postgresUrl);
    if (reason !== undefined) {
      return { database, reason: `${redactUrl(postgresUrl)} is not reachable (${reason})` };
    }
    const scratch = await createScratchDatabase(postgresUrl, 'bench_http');
    release = deferCleanup(async () => {
      await scratch.drop();
      progress(`PostgreSQL: dropped database ${scratch.name}`);
    });
    progress(`PostgreSQL: created database ${scratch.name}`);
    env.DATABASE_URL = scratch.url;
    env.ENCRYPTION_KEY = randomBytes(32).toString('hex');
  }
  try {
    return await measureService(settings, database, env);
  } finally {
    await release();
  }
}

async function measureService(
  settings: LoadSettings,
  database: DatabaseName,
  env: Record<string, string>,
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
    const putHeaders = { ...headers, 'content-type': 'application/json' };
    await expectJson([201], 'PUT', chatUrl, JSON.parse(body), headers);
    // The measured requests must succeed as sent: check one of each before loading.
    await expectJson([200], 'PUT', chatUrl, JSON.parse(body), headers);
    const stored = (await expectJson([200], 'GET', chatUrl, undefined, headers)) as { messages?: unknown[] };
    if (stored.messages?.length !== 10) throw new Error('the stored chat does not have its 10 messages');

    const measurements: Measurement[] = [];
    measurements.push(
      await measure(settings, 'GET /healthz', database, {
        url: `${service.url}/healthz`,
        method: 'GET',
        headers: {},
        body: undefined,
      }),
    );
    measurements.push(
      await measure(settings, 'PUT /v1/chats/{id}', database, {
        url: chatUrl,
        method: 'PUT',
        headers: putHeaders,
        body,
      }),
    );
    measurements.push(
      await measure(settings, 'GET /v1/chats/{id}', database, {
        url: chatUrl,
        method: 'GET',
        headers,
        body: undefined,
      }),
    );
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
    `${formatPercent(ratio)} of the baseline (target ≥ ${formatPercent(target.minRatio)}) ${ratioMet ? '✓' : '✗'}`,
  ];
  if (target.maxP99Ms !== undefined) {
    parts.push(
      `p99 ${formatMs(result.latencyP99Ms)} ms (target ≤ ${target.maxP99Ms} ms) ${p99Met ? '✓' : '✗'}`,
    );
  }
  parts.push(`non-2xx/errors/timeouts ${failures} (target 0) ${failures === 0 ? '✓' : '✗'}`);
  return {
    database,
    met,
    text: `PUT /v1/chats/{id} on ${DATABASE_LABEL[database]}: **${met ? 'met' : 'not met'}**: ${parts.join('; ')}`,
  };
}

function report(
  settings: LoadSettings,
  baselines: readonly Measurement[],
  measurements: readonly Measurement[],
  skipped: readonly Skipped[],
  postgresUrl: string,
): { markdown: string; checks: TargetCheck[] } {
  const baselineRps =
    baselines.reduce((sum, baseline) => sum + baseline.result.requestsPerSecond, 0) / baselines.length;
  const checks: TargetCheck[] = [];
  const row = (measurement: Measurement): string[] => {
    const { result } = measurement;
    let target = '';
    if (measurement.database !== 'baseline' && measurement.scenario.startsWith('PUT')) {
      const check = checkTarget(measurement.database, result, baselineRps);
      checks.push(check);
      target = check.met ? 'met' : 'not met';
    }
    return [
      measurement.scenario,
      measurement.database === 'baseline' ? 'none' : DATABASE_LABEL[measurement.database],
      formatNumber(result.requestsPerSecond),
      formatPercent(result.requestsPerSecond / baselineRps),
      formatMs(result.latencyP50Ms),
      formatMs(result.latencyP99Ms),
      formatMs(result.latencyMaxMs),
      String(result.non2xx),
      `${result.errors} / ${result.timeouts}`,
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
      'max ms',
      'non-2xx',
      'errors / timeouts',
      'Target',
    ],
    [
      ...baselines.map((baseline, index) =>
        row({ ...baseline, scenario: `baseline GET / (${index === 0 ? 'first' : 'last'})` }),
      ),
      ...measurements.map(row),
    ],
    ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'l'],
  );
  const lines = [
    '## HTTP: the service against a bare fastify route (`bench/http`)',
    '',
    `Run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${environmentLine()}.`,
    `Command: \`${commandLine('bench:http', 'bench/http/run.ts')}\`.`,
    '',
    `${settings.connections} connections, ${settings.warmupSeconds} s warm-up then ${settings.durationSeconds} s measured per scenario;`,
    'autocannon runs in its own process; the service is `node dist/src/main.js` with `LOG_LEVEL=warn` in another',
    '(PGlite in a fresh temporary `DATA_DIR`; PostgreSQL in a fresh database, default pool of 10);',
    'the baseline is a bare fastify app answering `{"hello":"world"}` on `GET /`, in a third, measured first and last.',
    '`req/s` is the mean of the per-second counts; `vs baseline` divides it by the mean of the two baseline runs',
    `(${formatNumber(baselineRps)} req/s). The PUT sends a 10-message chat (about 2.6 kB) with a bearer token.`,
    '',
    table,
    '',
    'Targets (issue): with no non-2xx under 50 connections, the chat write reaches ≥ 25 % of the',
    "baseline's req/s with p99 ≤ 50 ms on PostgreSQL, and ≥ 10 % on PGlite.",
    '',
    ...checks.map((check) => `- ${check.text}`),
    ...skipped.map((skip) => `- ${DATABASE_LABEL[skip.database]}: skipped, ${skip.reason}.`),
  ];
  if (settings.connections !== 50)
    lines.push('', `Note: run with ${settings.connections} connections, not 50.`);
  if (skipped.some((skip) => skip.database === 'postgres')) {
    lines.push(
      '',
      `Set BENCH_DATABASE_URL (default ${redactUrl(DEFAULT_BENCH_DATABASE_URL)}) to run on PostgreSQL.`,
    );
  } else if (measurements.some((measurement) => measurement.database === 'postgres')) {
    lines.push('', `PostgreSQL server: ${redactUrl(postgresUrl).replace(/\/[^/]*$/, '/')} (same machine).`);
  }
  return { markdown: lines.join('\n'), checks };
}

async function main(): Promise<void> {
  const settings = parseLoadSettings(process.argv.slice(2), process.env);
  const postgresUrl = process.env.BENCH_DATABASE_URL ?? DEFAULT_BENCH_DATABASE_URL;
  const scenarios = 2 + settings.databases.length * 3;
  const deadlineMs = (scenarios * (settings.warmupSeconds + settings.durationSeconds + 15) + 180) * 1000;
  const uninstall = installCleanupHandlers(deadlineMs);
  try {
    if (settings.build) {
      progress('npm run build');
      await buildService();
    }
    progress('starting the baseline');
    const baseline = await startBaseline();
    const baselineRequest = { url: `${baseline.url}/`, method: 'GET', headers: {}, body: undefined } as const;
    const baselines = [await measure(settings, 'baseline GET /', 'baseline', baselineRequest)];

    const measurements: Measurement[] = [];
    const skipped: Skipped[] = [];
    for (const database of settings.databases) {
      const outcome = await benchDatabase(settings, database, postgresUrl);
      if (Array.isArray(outcome)) measurements.push(...outcome);
      else {
        skipped.push(outcome);
        progress(`${DATABASE_LABEL[database]}: skipped, ${outcome.reason}`);
      }
    }

    baselines.push(await measure(settings, 'baseline GET /', 'baseline', baselineRequest));
    await baseline.stop();

    const { markdown, checks } = report(settings, baselines, measurements, skipped, postgresUrl);
    process.stdout.write(`\n${markdown}\n`);
    if (settings.cpuProfileDir !== undefined) {
      progress(
        `CPU profiles in ${path.resolve(settings.cpuProfileDir)}; figures not written (profiling slows the service)`,
      );
    } else if (settings.write) {
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

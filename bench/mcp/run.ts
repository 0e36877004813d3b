// `npm run bench:mcp` (`npx tsx bench/mcp/run.ts`): latency of the MCP server's `search` tool
// (a JSON-RPC `tools/call` POSTed to /mcp) against POST /v1/search, on the same SciFact abstracts,
// the same queries and the same top_k, the two kinds of request alternating query by query; on
// PGlite and, when it answers, PostgreSQL. Writes the mcp section of docs/benchmarks.md.
// `--help` lists the settings.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { deferCleanup, runBenchmark } from '../lib/children.js';
import {
  type AvailableDatabases,
  type Check,
  createBenchDatabase,
  DATABASE_LABEL,
  type DatabaseName,
  postgresLine,
  verdictLines,
} from '../lib/databases.js';
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
import { type RunningServer, startService } from '../lib/service.js';
import { parseFlags, SERVICE_RUN_FLAGS, Settings, serviceRunUsage } from '../lib/settings.js';
import { type Percentiles, percentile, summarise } from '../lib/stats.js';
import { MCP_PROTOCOL_VERSION, mcpInitializeOnce, mcpSearchOnce } from './mcp-client.js';

const NAME = 'mcp';
/** The issue's target: the MCP call's p50 within 1.2× and within 5 ms of POST /v1/search's. */
const TARGET = { ratio: 1.2, differenceMs: 5 };
/** `initialize` requests timed, for information. */
const INITIALIZE_SAMPLES = 50;

const USAGE = `npx tsx bench/mcp/run.ts [options]   (npm run bench:mcp -- [options])

Uploads SciFact's abstracts through POST /v1/documents, then times the MCP \`search\` tool (a
JSON-RPC tools/call POSTed to /mcp) against POST /v1/search with the same queries and top_k,
alternating the two query by query, one request at a time.

Options (or the BENCH_* variable in brackets):
  --databases LIST    pglite and/or postgres (BENCH_DATABASES, default pglite,postgres;
                      PostgreSQL is skipped when BENCH_DATABASE_URL does not answer)
  --queries N         SciFact test queries (BENCH_QUERIES, default 300, at most 300)
  --passes N          times each query is sent, per kind of request (BENCH_PASSES, default 2)
  --warmup N          queries sent (each way) before measuring (BENCH_WARMUP, default 50)
  --top-k N           top_k of each search (BENCH_TOP_K, default 10)
  --batch N           documents per upload request (BENCH_BATCH, default 250)
  --timeout S         give up indexing after S seconds (BENCH_TIMEOUT, default 600)
  --dataset DIR       the SciFact copy (BENCH_SCIFACT_DIR, default ${DEFAULT_SCIFACT_DIR})
  --cpu-prof DIR      write a V8 CPU profile of each service process into DIR (figures not written)
${serviceRunUsage(22)}
  -h, --help          this text
  PostgreSQL: BENCH_DATABASE_URL (default ${DEFAULT_BENCH_DATABASE_URL})`;

type McpBenchSettings = ScifactSettings & {
  readonly passes: number;
  readonly warmup: number;
  readonly topK: number;
  readonly cpuProfileDir: string | undefined;
};

function parseSettings(argv: readonly string[], env: NodeJS.ProcessEnv): McpBenchSettings {
  const values = parseFlags(
    argv,
    ['databases', 'queries', 'passes', 'warmup', 'top-k', 'batch', 'timeout', 'dataset', 'cpu-prof'],
    [...SERVICE_RUN_FLAGS],
    USAGE,
  );
  const read = new Settings(values, env, USAGE);
  const cpuProfileDir = read.string('cpu-prof', 'BENCH_CPU_PROF', '');
  return {
    passes: read.number('passes', 'BENCH_PASSES', 2, 1, 20),
    warmup: read.number('warmup', 'BENCH_WARMUP', 50, 0, 10_000),
    topK: read.number('top-k', 'BENCH_TOP_K', 10, 1, 100),
    cpuProfileDir: cpuProfileDir === '' ? undefined : path.resolve(cpuProfileDir),
    ...readScifactSettings(read),
  };
}

function progress(message: string): void {
  process.stderr.write(`[bench:${NAME}] ${message}\n`);
}

type Kind = 'mcp' | 'search';

const KIND_LABEL: Record<Kind, string> = {
  mcp: 'MCP `tools/call` `search`',
  search: '`POST /v1/search`',
};

/** One kind of request's measured side. */
interface Side {
  readonly latency: Percentiles;
  readonly p95: number;
  /** Mean size of the answer's body. */
  readonly meanBytes: number;
  readonly errors: readonly string[];
}

interface DatabaseOutcome {
  readonly database: DatabaseName;
  readonly documents: number;
  readonly chunks: number;
  readonly indexingSeconds: number;
  readonly mcp: Side;
  readonly search: Side;
  /** Queries (of one pass) both answered with the same passages in the same order. */
  readonly samePassages: number;
  /** Queries either answered with no result. */
  readonly empty: number;
  readonly queries: number;
  readonly initialize: Side;
}

function side(latencies: readonly number[], bytes: readonly number[], errors: readonly string[]): Side {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    latency: summarise(latencies, errors.length),
    p95: percentile(sorted, 0.95),
    meanBytes: bytes.length === 0 ? Number.NaN : bytes.reduce((sum, value) => sum + value, 0) / bytes.length,
    errors,
  };
}

function describe(what: string, measured: Side): string {
  const { latency } = measured;
  return `${what}: p50 ${millis(latency.p50)} ms, p95 ${millis(measured.p95)} ms, p99 ${millis(latency.p99)} ms, ${latency.count} measured${latency.failed > 0 ? `, ${latency.failed} failed (${measured.errors[0]})` : ''}`;
}

/** Milliseconds to 0.1 ms. */
function millis(value: number): string {
  return value.toFixed(1);
}

/** One search of each kind for a query, answered as comparable passage ids (`document:chunk`). */
async function searchBothWays(
  url: string,
  headers: Readonly<Record<string, string>>,
  query: ScifactQuery,
  topK: number,
  order: readonly Kind[],
): Promise<Record<Kind, { ms: number; bytes: number; ids: string[] } | Error>> {
  const answers = {} as Record<Kind, { ms: number; bytes: number; ids: string[] } | Error>;
  for (const kind of order) {
    try {
      if (kind === 'mcp') {
        const { results, ms, bytes } = await mcpSearchOnce(url, headers, { query: query.text, top_k: topK });
        answers.mcp = { ms, bytes, ids: results.map((result) => result.id) };
      } else {
        const { results, ms } = await searchOnce(url, headers, { query: query.text, top_k: topK });
        // fastify writes the same compact JSON as JSON.stringify (its serializer follows the schema's order).
        const bytes = Buffer.byteLength(JSON.stringify({ results }));
        answers.search = {
          ms,
          bytes,
          ids: results.map((result) => `${result.document_id}:${result.chunk_id}`),
        };
      }
    } catch (error) {
      answers[kind] = error instanceof Error ? error : new Error(String(error));
    }
  }
  return answers;
}

async function measureOn(
  settings: McpBenchSettings,
  available: AvailableDatabases,
  name: DatabaseName,
  corpus: ReturnType<typeof loadScifact>,
  queries: readonly ScifactQuery[],
): Promise<DatabaseOutcome> {
  const label = DATABASE_LABEL[name];
  const log = (message: string) => progress(`${label}: ${message}`);
  const database = await createBenchDatabase(name, 'bench_mcp', available.adminUrl, log);
  const nodeArgs: string[] = [];
  if (settings.cpuProfileDir !== undefined) {
    mkdirSync(settings.cpuProfileDir, { recursive: true });
    nodeArgs.push(
      '--cpu-prof',
      `--cpu-prof-dir=${settings.cpuProfileDir}`,
      `--cpu-prof-name=service-${name}.cpuprofile`,
    );
  }
  let service: RunningServer | undefined;
  const stopService = deferCleanup(async () => {
    await service?.stop();
  });
  try {
    log('starting the service (no embeddings: the embedded default, lexical search)');
    service = await startService(
      `service (${label})`,
      { LOG_LEVEL: 'warn', ...database.env },
      nodeArgs,
      settings.fromSource,
    );
    const running = service;
    const { user, documents, chunks, indexingSeconds } = await indexScifact(
      running,
      `mcp-${name}`,
      corpus.documents,
      settings,
      log,
    );

    // Both must answer, with passages, before anything is timed.
    for (const query of queries.slice(0, 3)) {
      const answers = await searchBothWays(running.url, user.headers, query, settings.topK, [
        'mcp',
        'search',
      ]);
      for (const kind of ['mcp', 'search'] as const) {
        const answer = answers[kind];
        if (answer instanceof Error) throw answer;
        if (answer.ids.length === 0) throw new Error(`${KIND_LABEL[kind]} found nothing for "${query.text}"`);
      }
    }
    log(`warming up: ${settings.warmup} queries each way`);
    for (const [index, query] of queries.slice(0, settings.warmup).entries()) {
      await searchBothWays(running.url, user.headers, query, settings.topK, orderFor(index));
    }

    log(`measuring: ${queries.length} queries × ${settings.passes} passes, each way, alternating`);
    const latencies: Record<Kind, number[]> = { mcp: [], search: [] };
    const bytes: Record<Kind, number[]> = { mcp: [], search: [] };
    const errors: Record<Kind, string[]> = { mcp: [], search: [] };
    let samePassages = 0;
    let empty = 0;
    let sent = 0;
    for (let pass = 0; pass < settings.passes; pass++) {
      for (const query of queries) {
        // Who goes first alternates, so that neither always meets the other's warm caches.
        const answers = await searchBothWays(running.url, user.headers, query, settings.topK, orderFor(sent));
        sent += 1;
        for (const kind of ['mcp', 'search'] as const) {
          const answer = answers[kind];
          if (answer instanceof Error) errors[kind].push(answer.message);
          else {
            latencies[kind].push(answer.ms);
            bytes[kind].push(answer.bytes);
          }
        }
        if (pass > 0) continue;
        const { mcp, search } = answers;
        if (mcp instanceof Error || search instanceof Error) continue;
        if (mcp.ids.length === 0 || search.ids.length === 0) empty += 1;
        if (mcp.ids.join(' ') === search.ids.join(' ')) samePassages += 1;
      }
    }
    const mcp = side(latencies.mcp, bytes.mcp, errors.mcp);
    const search = side(latencies.search, bytes.search, errors.search);
    log(describe('MCP search', mcp));
    log(describe('POST /v1/search', search));
    log(`${samePassages} of ${queries.length} queries: the same passages in the same order; ${empty} empty`);

    const initializeTimes: number[] = [];
    const initializeErrors: string[] = [];
    for (let index = 0; index < INITIALIZE_SAMPLES; index++) {
      try {
        initializeTimes.push(await mcpInitializeOnce(running.url, user.headers));
      } catch (error) {
        initializeErrors.push(error instanceof Error ? error.message : String(error));
      }
    }
    const initialize = side(initializeTimes, [], initializeErrors);
    log(describe('MCP initialize', initialize));
    return {
      database: name,
      documents,
      chunks,
      indexingSeconds,
      mcp,
      search,
      samePassages,
      empty,
      queries: queries.length,
      initialize,
    };
  } finally {
    await stopService();
    await database.release();
  }
}

function orderFor(index: number): Kind[] {
  return index % 2 === 0 ? ['mcp', 'search'] : ['search', 'mcp'];
}

function verdict(outcome: DatabaseOutcome): Check & { ratio: number; differenceMs: number } {
  const mcpP50 = outcome.mcp.latency.p50;
  const searchP50 = outcome.search.latency.p50;
  const ratio = mcpP50 / searchP50;
  const differenceMs = mcpP50 - searchP50;
  const withinRatio = ratio <= TARGET.ratio;
  const withinMs = differenceMs <= TARGET.differenceMs;
  const failed = outcome.mcp.latency.failed + outcome.search.latency.failed;
  const complete = failed === 0 && outcome.empty === 0;
  const met = withinRatio && withinMs && complete;
  const parts = [
    `MCP p50 ${millis(mcpP50)} ms against ${millis(searchP50)} ms`,
    `${ratio.toFixed(2)}× (target ≤ ${TARGET.ratio}×) ${withinRatio ? '✓' : '✗'}`,
    `${signedMs(differenceMs)} ms (target ≤ +${TARGET.differenceMs} ms) ${withinMs ? '✓' : '✗'}`,
  ];
  if (failed > 0) parts.push(`${failed} failed ✗`);
  if (outcome.empty > 0) parts.push(`${outcome.empty} queries answered with no result ✗`);
  return {
    met,
    ratio,
    differenceMs,
    text: `${DATABASE_LABEL[outcome.database]}: **${met ? 'met' : 'not met'}**: ${parts.join('; ')}`,
  };
}

function signedMs(value: number): string {
  return `${value >= 0 ? '+' : '−'}${millis(Math.abs(value))}`;
}

function report(
  settings: McpBenchSettings,
  available: AvailableDatabases,
  outcomes: readonly DatabaseOutcome[],
  startedAt: Date,
): { markdown: string; checks: Check[] } {
  const checks: Check[] = [];
  const rows: string[][] = [];
  for (const outcome of outcomes) {
    const label = DATABASE_LABEL[outcome.database];
    const check = verdict(outcome);
    checks.push(check);
    const row = (what: string, measured: Side, versus: string[]) => [
      label,
      what,
      formatNumber(measured.latency.count),
      String(measured.latency.failed),
      millis(measured.latency.p50),
      millis(measured.p95),
      millis(measured.latency.p99),
      millis(measured.latency.mean),
      Number.isNaN(measured.meanBytes) ? '' : formatNumber(measured.meanBytes),
      ...versus,
    ];
    rows.push(row(KIND_LABEL.search, outcome.search, ['', '', '']));
    rows.push(
      row(KIND_LABEL.mcp, outcome.mcp, [
        `${check.ratio.toFixed(2)}×`,
        signedMs(check.differenceMs),
        check.met ? 'met' : '**not met**',
      ]),
    );
    rows.push(row('MCP `initialize` (once a session; information)', outcome.initialize, ['', '', '']));
  }
  const table = markdownTable(
    [
      'Database',
      'Request',
      'measured',
      'failed',
      'p50 ms',
      'p95 ms',
      'p99 ms',
      'mean ms',
      'mean bytes',
      'p50 vs /v1/search',
      'p50 − /v1/search ms',
      'Target',
    ],
    rows,
    ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'l'],
  );
  const data = outcomes.map(
    (outcome) =>
      `${DATABASE_LABEL[outcome.database]}: ${formatNumber(outcome.documents)} documents, ${formatNumber(outcome.chunks)} chunks, indexed in ${outcome.indexingSeconds.toFixed(1)} s; ${outcome.samePassages} of ${outcome.queries} queries answered with the same passages in the same order both ways, ${outcome.empty} with none.`,
  );
  const queries = outcomes[0]?.queries ?? settings.queries;
  const lines = [
    '## MCP: the `search` tool against `POST /v1/search` (`bench/mcp`)',
    '',
    `Run ${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC on ${environmentLine()}.`,
    `Command: \`${commandLine(`bench:${NAME}`, `bench/${NAME}/run.ts`)}\`; took ${Math.round((Date.now() - startedAt.getTime()) / 1000)} s.`,
    ...postgresLine(available),
    '',
    "SciFact's abstracts are uploaded to `POST /v1/documents` of the service as users run it (`node dist/src/main.js`,",
    '`LOG_LEVEL=warn`, a fresh PGlite folder or PostgreSQL database, no embeddings: the embedded default, lexical search).',
    `Then ${queries} SciFact test queries go ${settings.passes === 1 ? 'once' : `${settings.passes} times over`}, one request at a time, both ways with \`top_k\` ${settings.topK} and no \`mode\`:`,
    '`POST /v1/search` with a bearer token, and the MCP tool as a stateless Streamable HTTP client calls it, one',
    'JSON-RPC `tools/call` of `search` POSTed to `/mcp` (`accept: application/json, text/event-stream`, `mcp-protocol-version:',
    `${MCP_PROTOCOL_VERSION}\`, the same token), whose answer is one text content holding \`{"results": [...]}\`. The two alternate query by`,
    `query, who goes first alternating too, so that machine noise and warm caches meet both alike, after ${settings.warmup} warm-up`,
    'queries each way. Times run from sending the request to reading the whole answer, in this process, over kept-alive',
    "connections. `mean bytes` is the answer's body. An SDK client also sends `initialize` (and `notifications/initialized`)",
    'once when it opens a session: that is not in the per-call figure; its row times it alone, for information.',
    '',
    table,
    '',
    ...data,
    '',
    `Target (issue): the MCP call's p50 at most ${TARGET.ratio}× that of \`POST /v1/search\` and at most ${TARGET.differenceMs} ms above it,`,
    'with every request answered and every query finding passages.',
    '',
    ...verdictLines(checks, available.skipped),
  ];
  return { markdown: lines.join('\n'), checks };
}

async function main(): Promise<void> {
  const settings = parseSettings(process.argv.slice(2), process.env);
  await runScifactBench({
    name: NAME,
    after: 'search',
    settings,
    progress,
    measure: (available, database, corpus, queries) =>
      measureOn(settings, available, database, corpus, queries),
    report: (available, outcomes, startedAt) => report(settings, available, outcomes, startedAt),
  });
}

runBenchmark(NAME, main);

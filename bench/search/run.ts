// `npm run bench:search` (`npx tsx bench/search/run.ts`): latency of POST /v1/search on a
// 100,000-chunk team in a database that also holds 9 other teams, in lexical, dense and hybrid
// modes, one client at a time and several at once, beside a raw pgvector HNSW query on the same
// vectors in the same run; then the team's owner (who may open every document) against a member
// who may open a tenth of them, query by query; on PostgreSQL and (with less data) PGlite. Prints
// the EXPLAIN ANALYZE of the slowest lexical queries. Writes the search section of
// docs/benchmarks.md. `--help` lists the settings.
import os from 'node:os';
import pg from 'pg';
import { memberReader } from '../../src/access.js';
import { HashingEmbeddingModel } from '../../src/adapters/embeddings/hashing-embedding-model.js';
import { parseConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/client.js';
import { indexedVectorType } from '../../src/db/vector-index.js';
import { installCleanupHandlers, runBenchmark, runCleanups } from '../lib/children.js';
import { systemBusySeconds } from '../lib/cpu.js';
import { forgetKeptData } from '../lib/data-cache.js';
import {
  type AvailableDatabases,
  availableDatabases,
  type Check,
  DATABASE_LABEL,
  type DatabaseName,
  postgresLine,
  verdictLines,
} from '../lib/databases.js';
import { type LatencyRun, timeRequests } from '../lib/latency.js';
import { explainLexicalSearch } from '../lib/lexical-plan.js';
import { DEFAULT_BENCH_DATABASE_URL } from '../lib/postgres.js';
import {
  commandLine,
  environmentLine,
  formatMs,
  formatNumber,
  markdownTable,
  publishSection,
} from '../lib/report.js';
import { DEFAULT_SCIFACT_DIR, loadScifact, type ScifactQuery } from '../lib/scifact.js';
import { type SearchMode, searchOnce } from '../lib/search-client.js';
import { buildService } from '../lib/service.js';
import { parseFlags, SERVICE_RUN_FLAGS, Settings, serviceRunUsage } from '../lib/settings.js';
import { type Percentiles, summarise } from '../lib/stats.js';
import {
  readTeamDataSettings,
  storedDataLine,
  TEAM_DATA_BOOLEAN_FLAGS,
  TEAM_DATA_FLAGS,
  TEAM_DATA_USAGE,
  type TeamData,
  type TeamDataSettings,
  teamDataDescription,
} from '../lib/team-fixture.js';
import { withTeamService } from '../lib/team-service.js';
import type { BenchUser } from '../lib/users.js';

const NAME = 'search';
const MODES: readonly SearchMode[] = ['lexical', 'dense', 'hybrid'];
/** The issue's targets, on PostgreSQL. */
const TARGETS = { p50Ms: 30, p99Ms: 150, vsRaw: 3 };
/** The access lists' target, on both databases: the member's p50 at most this many times the owner's. */
const MEMBER_VS_OWNER = 1.5;

const USAGE = `npx tsx bench/search/run.ts [options]   (npm run bench:search -- [options])

Builds a big team (SciFact abstracts repeated with variations) and smaller teams in one database,
with vectors, and measures POST /v1/search latency on the big team beside a raw pgvector query,
then its owner's searches against those of a member who may open a tenth of its documents.

Options (or the BENCH_* variable in brackets):
  --databases LIST        postgres and/or pglite (BENCH_DATABASES, default postgres,pglite)
${TEAM_DATA_USAGE}
  --queries N             SciFact test queries sent per mode and pass (BENCH_QUERIES, default 200, at most 300)
  --clients N             clients of the concurrent pass (BENCH_CLIENTS, default 4)
  --warmup N              queries sent per mode before measuring (BENCH_WARMUP, default 20)
  --top-k N               top_k of each search (BENCH_TOP_K, default 10)
  --dataset DIR           the SciFact copy (BENCH_SCIFACT_DIR, default ${DEFAULT_SCIFACT_DIR})
${serviceRunUsage(26)}
  --forget-data           remove the data kept by --keep-data (for every setting) and stop
  -h, --help              this text
  PostgreSQL: BENCH_DATABASE_URL (default ${DEFAULT_BENCH_DATABASE_URL})`;

interface SearchSettings {
  readonly databases: readonly DatabaseName[];
  readonly data: TeamDataSettings;
  readonly queries: number;
  readonly clients: number;
  readonly warmup: number;
  readonly topK: number;
  readonly datasetDir: string;
  readonly build: boolean;
  readonly fromSource: boolean;
  readonly write: boolean;
  readonly forgetData: boolean;
}

function parseSettings(argv: readonly string[], env: NodeJS.ProcessEnv): SearchSettings {
  const values = parseFlags(
    argv,
    ['databases', ...TEAM_DATA_FLAGS, 'queries', 'clients', 'warmup', 'top-k', 'dataset'],
    [...SERVICE_RUN_FLAGS, 'forget-data', ...TEAM_DATA_BOOLEAN_FLAGS],
    USAGE,
  );
  const read = new Settings(values, env, USAGE);
  return {
    databases: read.list('databases', 'BENCH_DATABASES', ['postgres', 'pglite'], ['postgres', 'pglite']),
    data: readTeamDataSettings(read),
    queries: read.number('queries', 'BENCH_QUERIES', 200, 1, 300),
    clients: read.number('clients', 'BENCH_CLIENTS', 4, 1, 256),
    warmup: read.number('warmup', 'BENCH_WARMUP', 20, 0, 10_000),
    topK: read.number('top-k', 'BENCH_TOP_K', 10, 1, 100),
    datasetDir: read.string('dataset', 'BENCH_SCIFACT_DIR', DEFAULT_SCIFACT_DIR),
    ...read.serviceRun(),
    forgetData: values['forget-data'] === true,
  };
}

function progress(message: string): void {
  process.stderr.write(`[bench:${NAME}] ${message}\n`);
}

/** One row of figures. */
interface Row {
  readonly what: string;
  readonly clients: number;
  readonly run: LatencyRun;
  /** Which row's p50 it is compared with (the raw query's), if any. */
  readonly mode: SearchMode | 'raw' | 'small';
  /** Searches that came back with fewer than top_k results. */
  readonly short?: number;
}

/** One searcher's side of the owner-and-member pass. */
interface Searcher {
  readonly latency: Percentiles;
  /** Responses with the full top_k. */
  readonly full: number;
  readonly slowest: { readonly index: number; readonly ms: number } | undefined;
  readonly errors: readonly string[];
}

/** The owner and the member, the same queries in one mode, one search at a time, alternating. */
interface AccessRow {
  readonly mode: SearchMode;
  readonly owner: Searcher;
  readonly member: Searcher;
}

/** How busy the machine was over the owner-and-member passes (this benchmark's processes included). */
interface MachineLoad {
  /** Cores' worth of CPU the whole machine used, on average (undefined without /proc/stat). */
  readonly busyCores: number | undefined;
  /** The 1-minute load average at the start and at the end. */
  readonly loadBefore: number;
  readonly loadAfter: number;
}

interface PlannedQuery {
  readonly query: string;
  readonly ms: number;
  readonly plan: readonly string[];
}

interface DatabaseOutcome {
  readonly database: DatabaseName;
  readonly teamData: TeamData;
  readonly sizeMiB: number;
  readonly rows: readonly Row[];
  readonly access: readonly AccessRow[];
  readonly accessLoad: MachineLoad | undefined;
  readonly slowestLexical: PlannedQuery | undefined;
  /** The member's slowest lexical query, planned as the member runs it. */
  readonly slowestMemberLexical: PlannedQuery | undefined;
  readonly rawPlan: readonly string[];
  readonly efSearch: number;
}

function describe(run: LatencyRun): string {
  const { latency } = run;
  return `p50 ${formatMs(latency.p50)} ms, p90 ${formatMs(latency.p90)} ms, p99 ${formatMs(latency.p99)} ms, max ${formatMs(latency.max)} ms, ${run.perSecond.toFixed(1)}/s${latency.failed > 0 ? `, ${latency.failed} failed (${run.errors[0]})` : ''}`;
}

/**
 * Each query searched by both users, one search at a time, who goes first alternating from one
 * query to the next: both meet the same load and the same caches (whoever searches a query first
 * may count a common term's frequency that the other then finds remembered).
 */
async function timeOwnerAndMember(
  queries: readonly ScifactQuery[],
  topK: number,
  search: (query: ScifactQuery, user: 'owner' | 'member') => Promise<{ ms: number; count: number }>,
): Promise<{ owner: Searcher; member: Searcher }> {
  const sides = {
    owner: {
      latencies: [] as number[],
      full: 0,
      slowest: undefined as Searcher['slowest'],
      errors: [] as string[],
    },
    member: {
      latencies: [] as number[],
      full: 0,
      slowest: undefined as Searcher['slowest'],
      errors: [] as string[],
    },
  };
  for (const [index, query] of queries.entries()) {
    const order: ('owner' | 'member')[] = index % 2 === 0 ? ['owner', 'member'] : ['member', 'owner'];
    for (const user of order) {
      const side = sides[user];
      try {
        const { ms, count } = await search(query, user);
        side.latencies.push(ms);
        if (count >= topK) side.full += 1;
        if (side.slowest === undefined || ms > side.slowest.ms) side.slowest = { index, ms };
      } catch (error) {
        side.errors.push(error instanceof Error ? error.message : String(error));
      }
    }
  }
  const searcher = (side: (typeof sides)['owner']): Searcher => ({
    latency: summarise(side.latencies, side.errors.length),
    full: side.full,
    slowest: side.slowest,
    errors: side.errors,
  });
  return { owner: searcher(sides.owner), member: searcher(sides.member) };
}

function describeSearcher(searcher: Searcher, topK: number): string {
  const { latency } = searcher;
  return `p50 ${formatMs(latency.p50)} ms, p90 ${formatMs(latency.p90)} ms, p99 ${formatMs(latency.p99)} ms, max ${formatMs(latency.max)} ms, ${searcher.full}/${latency.count + latency.failed} with ${topK} results${latency.failed > 0 ? `, ${latency.failed} failed (${searcher.errors[0]})` : ''}`;
}

/** The raw pgvector query the service's dense search is compared with. */
function rawVectorSql(model: string, dimensions: number, topK: number): string {
  const { cast } = indexedVectorType(dimensions);
  const literal = `'${model.replaceAll("'", "''")}'`;
  return `SELECT chunk_id FROM chunk_embeddings WHERE model = ${literal} AND team_id = $1
          ORDER BY embedding::${cast} <=> $2::${cast} LIMIT ${topK}`;
}

async function measureOn(
  settings: SearchSettings,
  available: AvailableDatabases,
  name: DatabaseName,
  corpus: ReturnType<typeof loadScifact>,
  queries: readonly ScifactQuery[],
): Promise<DatabaseOutcome> {
  const label = DATABASE_LABEL[name];
  const log = (message: string) => progress(`${label}: ${message}`);
  const efSearch = parseConfig({}).search.efSearch;
  const setup = { benchmark: NAME, database: name, available, settings, corpus: corpus.documents, log };
  return withTeamService({ ...setup, slackApp: false }, async (team) => {
    const { teamData, database, sizeMiB, service, embeddingModel } = team;
    const { fixture } = teamData;
    const rows: Row[] = [];
    const search = async (query: ScifactQuery, mode: SearchMode, user: BenchUser = fixture.big) => {
      const { results, ms } = await searchOnce(service.url, user.headers, {
        query: query.text,
        top_k: settings.topK,
        mode,
      });
      return { ms, count: results.length };
    };
    const embedder = new HashingEmbeddingModel({ dimensions: settings.data.dimensions });
    const vectors = queries.map((query) => `[${embedder.vectorFor(query.text).join(',')}]`);
    const rawSql = rawVectorSql(embeddingModel, settings.data.dimensions, settings.topK);

    // PostgreSQL: the raw query from a pool of this process, around the service's passes.
    const rawPool =
      database.postgres === undefined
        ? undefined
        : new pg.Pool({
            connectionString: database.postgres.url,
            max: settings.clients,
            // Session settings from the start of each connection.
            options: `-c hnsw.iterative_scan=strict_order -c hnsw.ef_search=${efSearch}`,
          });
    rawPool?.on('error', () => {});
    const rawPass = async (what: string, clients: number) => {
      if (rawPool === undefined) return;
      const run = await timeRequests(queries, clients, async (_, index) => {
        const started = performance.now();
        await rawPool.query(rawSql, [fixture.big.teamId, vectors[index]]);
        return performance.now() - started;
      });
      rows.push({ what, clients, run, mode: 'raw' });
      log(`${what}, ${clients} client(s): ${describe(run)}`);
    };
    let rawPlan: string[] = [];
    try {
      if (rawPool !== undefined) {
        // Warm the pool's sessions (and the index) first.
        await timeRequests(queries.slice(0, settings.warmup), settings.clients, async (_, index) => {
          await rawPool.query(rawSql, [fixture.big.teamId, vectors[index]]);
          return 0;
        });
        const client = await rawPool.connect();
        try {
          const { rows: plan } = await client.query(`EXPLAIN (ANALYZE, BUFFERS) ${rawSql}`, [
            fixture.big.teamId,
            vectors[0],
          ]);
          rawPlan = plan.map((row: Record<string, unknown>) => String(row['QUERY PLAN']));
        } finally {
          client.release();
        }
        await rawPass('raw pgvector HNSW query (before)', 1);
      }
      let slowest: { query: string; ms: number } | undefined;
      for (const mode of MODES) {
        for (const query of queries.slice(0, settings.warmup)) await search(query, mode);
        let short = 0;
        const sequential = await timeRequests(queries, 1, async (query) => {
          const { ms, count } = await search(query, mode);
          if (count < settings.topK) short += 1;
          return ms;
        });
        rows.push({ what: `${mode} search`, clients: 1, run: sequential, mode, short });
        log(`${mode}, 1 client: ${describe(sequential)}; ${short} with fewer than ${settings.topK} results`);
        if (mode === 'lexical' && sequential.slowest !== undefined) {
          slowest = { query: queries[sequential.slowest.index]?.text ?? '', ms: sequential.slowest.ms };
        }
        if (settings.clients > 1) {
          const concurrent = await timeRequests(
            queries,
            settings.clients,
            async (query) => (await search(query, mode)).ms,
          );
          rows.push({ what: `${mode} search`, clients: settings.clients, run: concurrent, mode });
          log(`${mode}, ${settings.clients} clients: ${describe(concurrent)}`);
        }
      }
      // A small team in the same database still gets its full top_k from the vector index.
      const small = fixture.others[0];
      if (small !== undefined) {
        let short = 0;
        const run = await timeRequests(queries.slice(0, Math.min(queries.length, 100)), 1, async (query) => {
          const { ms, count } = await search(query, 'dense', small);
          if (count < settings.topK) short += 1;
          return ms;
        });
        const chunks = fixture.stored.find((team) => team.teamId === small.teamId)?.chunks ?? 0;
        rows.push({
          what: `dense search, a ${formatNumber(chunks)}-chunk team`,
          clients: 1,
          run,
          mode: 'small',
          short,
        });
        log(
          `dense search on a small team: ${describe(run)}; ${short} with fewer than ${settings.topK} results`,
        );
      }
      // The owner, who may open every document, against the member, who may open a tenth of them.
      const access: AccessRow[] = [];
      let slowestMember: { query: string; ms: number } | undefined;
      const users = { owner: fixture.big, member: fixture.member };
      const busyBefore = systemBusySeconds();
      const startedAccess = performance.now();
      const loadBefore = os.loadavg()[0] ?? 0;
      for (const mode of MODES) {
        for (const query of queries.slice(0, settings.warmup)) {
          await search(query, mode, users.owner);
          await search(query, mode, users.member);
        }
        const { owner, member } = await timeOwnerAndMember(queries, settings.topK, (query, user) =>
          search(query, mode, users[user]),
        );
        access.push({ mode, owner, member });
        log(`${mode}, the owner: ${describeSearcher(owner, settings.topK)}`);
        log(
          `${mode}, the member: ${describeSearcher(member, settings.topK)}; p50 ${(member.latency.p50 / owner.latency.p50).toFixed(2)}× the owner's`,
        );
        if (mode === 'lexical' && member.slowest !== undefined) {
          slowestMember = { query: queries[member.slowest.index]?.text ?? '', ms: member.slowest.ms };
        }
      }
      const busyAfter = systemBusySeconds();
      const accessSeconds = (performance.now() - startedAccess) / 1000;
      const accessLoad: MachineLoad = {
        busyCores:
          busyBefore === undefined || busyAfter === undefined || accessSeconds <= 0
            ? undefined
            : (busyAfter - busyBefore) / accessSeconds,
        loadBefore,
        loadAfter: os.loadavg()[0] ?? 0,
      };
      log(
        `machine over the owner-and-member passes: ${accessLoad.busyCores?.toFixed(2) ?? '?'} of ${os.availableParallelism()} cores busy, load average ${loadBefore.toFixed(2)} → ${accessLoad.loadAfter.toFixed(2)}`,
      );
      await rawPass('raw pgvector HNSW query (after)', 1);
      if (settings.clients > 1) await rawPass('raw pgvector HNSW query', settings.clients);
      // Stopped early (the end's stop is then a no-op): PGlite's database opens in one process only.
      await service.stop();

      // The plan of the slowest lexical query; on PGlite, also the raw query, now that the
      // service has let go of the database.
      let slowestLexical: DatabaseOutcome['slowestLexical'];
      let slowestMemberLexical: DatabaseOutcome['slowestMemberLexical'];
      const handle = await openDatabase(
        database.location.kind === 'postgres' ? { ...database.location, poolSize: 2 } : database.location,
      );
      try {
        const explain = async (user: BenchUser, query: string, what: string) => {
          const plan = await explainLexicalSearch(handle.sql, memberReader(user), query, settings.topK);
          log(`EXPLAIN ANALYZE of ${what}: "${query}"`);
          for (const line of plan) process.stderr.write(`    ${line}\n`);
          return plan;
        };
        if (slowest !== undefined) {
          const plan = await explain(
            fixture.big,
            slowest.query,
            `the slowest lexical query (${formatMs(slowest.ms)} ms)`,
          );
          slowestLexical = { ...slowest, plan };
        }
        if (slowestMember !== undefined) {
          const what = `the member's slowest lexical query (${formatMs(slowestMember.ms)} ms)`;
          const plan = await explain(fixture.member, slowestMember.query, `${what}, as the member`);
          slowestMemberLexical = { ...slowestMember, plan };
          await explain(fixture.big, slowestMember.query, `${what}, as the owner`);
        }
        if (rawPool === undefined) {
          await handle.sql.executeSql('SET hnsw.iterative_scan = strict_order');
          await handle.sql.executeSql(`SET hnsw.ef_search = ${efSearch}`);
          for (const vector of vectors.slice(0, settings.warmup)) {
            await handle.sql.executeSql(rawSql, [fixture.big.teamId, vector]);
          }
          const { rows: plan } = await handle.sql.executeSql(`EXPLAIN (ANALYZE, BUFFERS) ${rawSql}`, [
            fixture.big.teamId,
            vectors[0],
          ]);
          rawPlan = plan.map((row) => String(row['QUERY PLAN']));
          const run = await timeRequests(queries, 1, async (_, index) => {
            const started = performance.now();
            await handle.sql.executeSql(rawSql, [fixture.big.teamId, vectors[index]]);
            return performance.now() - started;
          });
          rows.push({
            what: 'raw pgvector HNSW query (in this process, after)',
            clients: 1,
            run,
            mode: 'raw',
          });
          log(`raw query in this process: ${describe(run)}`);
        }
      } finally {
        await handle.close();
      }
      log(
        `raw query plan:\n${withoutVectors(rawPlan)
          .map((line) => `    ${line}`)
          .join('\n')}`,
      );
      return {
        database: name,
        teamData,
        sizeMiB,
        rows,
        access,
        accessLoad,
        slowestLexical,
        slowestMemberLexical,
        rawPlan,
        efSearch,
      };
    } finally {
      await rawPool?.end();
    }
  });
}

function rawBaseline(rows: readonly Row[]): number | undefined {
  const raw = rows.filter((row) => row.mode === 'raw' && row.clients === 1).map((row) => row.run.latency.p50);
  return raw.length === 0 ? undefined : raw.reduce((sum, value) => sum + value, 0) / raw.length;
}

function databaseSection(
  outcome: DatabaseOutcome,
  settings: SearchSettings,
): { lines: string[]; checks: Check[] } {
  const label = DATABASE_LABEL[outcome.database];
  const raw = rawBaseline(outcome.rows);
  const table = markdownTable(
    [
      'Query',
      'clients',
      'queries',
      'p50 ms',
      'p90 ms',
      'p99 ms',
      'max ms',
      'per second',
      'p50 vs raw',
      'short',
      'Target',
    ],
    outcome.rows.map((row) => {
      const { latency } = row.run;
      const checked =
        outcome.database === 'postgres' && row.clients === 1 && MODES.includes(row.mode as SearchMode);
      const met =
        latency.p50 <= TARGETS.p50Ms &&
        latency.p99 <= TARGETS.p99Ms &&
        (raw === undefined || latency.p50 <= TARGETS.vsRaw * raw) &&
        latency.failed === 0;
      return [
        row.what,
        String(row.clients),
        formatNumber(latency.count + latency.failed),
        formatMs(round(latency.p50)),
        formatMs(round(latency.p90)),
        formatMs(round(latency.p99)),
        formatMs(round(latency.max)),
        formatNumber(row.run.perSecond, 1),
        raw === undefined || row.mode === 'raw' ? '' : `${(latency.p50 / raw).toFixed(1)}×`,
        row.short === undefined ? '' : String(row.short),
        checked ? (met ? 'met' : '**not met**') : '',
      ];
    }),
    ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'l'],
  );
  const checks: Check[] = [];
  if (outcome.database === 'postgres') {
    for (const row of outcome.rows) {
      if (row.clients !== 1 || !MODES.includes(row.mode as SearchMode)) continue;
      const { latency } = row.run;
      const parts: string[] = [];
      let met = latency.failed === 0;
      const p50 = latency.p50 <= TARGETS.p50Ms;
      const p99 = latency.p99 <= TARGETS.p99Ms;
      met &&= p50 && p99;
      parts.push(`p50 ${formatMs(round(latency.p50))} ms (target ≤ ${TARGETS.p50Ms}) ${p50 ? '✓' : '✗'}`);
      parts.push(`p99 ${formatMs(round(latency.p99))} ms (target ≤ ${TARGETS.p99Ms}) ${p99 ? '✓' : '✗'}`);
      if (raw !== undefined) {
        const ratio = latency.p50 / raw;
        const ok = ratio <= TARGETS.vsRaw;
        met &&= ok;
        parts.push(
          `${ratio.toFixed(1)}× the raw vector query's p50 of ${formatMs(round(raw))} ms (target ≤ ${TARGETS.vsRaw}×) ${ok ? '✓' : '✗'}`,
        );
      }
      if (latency.failed > 0) parts.push(`${latency.failed} failed ✗`);
      checks.push({
        met,
        text: `${row.what} on ${label}: **${met ? 'met' : 'not met'}**: ${parts.join('; ')}`,
      });
    }
  }
  const lines = [
    `### ${label}`,
    '',
    storedDataLine(outcome.teamData, settings.data.dimensions, outcome.sizeMiB),
    '',
    table,
  ];
  if (outcome.access.length > 0) {
    const access = accessSection(outcome, settings);
    lines.push('', ...access.lines);
    checks.push(...access.checks);
  }
  const planned = [
    { who: 'the slowest lexical query', query: outcome.slowestLexical },
    { who: "the member's slowest lexical query, as the member", query: outcome.slowestMemberLexical },
  ];
  for (const { who, query } of planned) {
    if (query === undefined) continue;
    lines.push(
      '',
      `<details><summary>EXPLAIN ANALYZE of ${who} on ${label} (${formatMs(round(query.ms))} ms through the API): "${query.query.replaceAll('<', '&lt;')}"</summary>`,
      '',
      '```text',
      ...query.plan,
      '```',
      '',
      '</details>',
    );
  }
  if (outcome.rawPlan.length > 0) {
    lines.push(
      '',
      `<details><summary>EXPLAIN ANALYZE of the raw vector query on ${label}</summary>`,
      '',
      '```text',
      rawVectorSql('…', settings.data.dimensions, settings.topK).replace(/\s+/g, ' '),
      ...withoutVectors(outcome.rawPlan),
      '```',
      '',
      '</details>',
    );
  }
  return { lines, checks };
}

/** The owner-and-member table of one database, and its verdicts (on every database). */
function accessSection(
  outcome: DatabaseOutcome,
  settings: SearchSettings,
): { lines: string[]; checks: Check[] } {
  const label = DATABASE_LABEL[outcome.database];
  const share = (searcher: Searcher) => {
    const total = searcher.latency.count + searcher.latency.failed;
    return `${searcher.full}/${total}`;
  };
  const verdicts = outcome.access.map((row) => {
    const ratio = row.member.latency.p50 / row.owner.latency.p50;
    const total = row.member.latency.count + row.member.latency.failed;
    const fast = ratio <= MEMBER_VS_OWNER;
    const ownerTotal = row.owner.latency.count + row.owner.latency.failed;
    // The ratio compares like with like only when both get a full top_k (the owner may open everything).
    const full = row.member.full === total && total > 0 && row.owner.full === ownerTotal;
    const failed = row.owner.latency.failed + row.member.latency.failed;
    return { row, ratio, fast, full, failed, met: fast && full && failed === 0 };
  });
  const table = markdownTable(
    [
      'Mode',
      'queries',
      'owner p50 ms',
      'owner p99 ms',
      'member p50 ms',
      'member p99 ms',
      'member p50 / owner p50',
      `owner: full top_k`,
      `member: full top_k`,
      'Target',
    ],
    verdicts.map(({ row, ratio, met }) => [
      `${row.mode} search`,
      formatNumber(row.member.latency.count + row.member.latency.failed),
      formatMs(round(row.owner.latency.p50)),
      formatMs(round(row.owner.latency.p99)),
      formatMs(round(row.member.latency.p50)),
      formatMs(round(row.member.latency.p99)),
      `${ratio.toFixed(2)}×`,
      share(row.owner),
      share(row.member),
      met ? 'met' : '**not met**',
    ]),
    ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'l'],
  );
  const checks = verdicts.map(({ row, ratio, fast, full, failed, met }) => {
    const total = row.member.latency.count + row.member.latency.failed;
    const parts = [
      `p50 ${formatMs(round(row.member.latency.p50))} ms, ${ratio.toFixed(2)}× the owner's ${formatMs(round(row.owner.latency.p50))} ms (target ≤ ${MEMBER_VS_OWNER}×) ${fast ? '✓' : '✗'}`,
      `${row.member.full} of ${total} responses with the full top_k of ${settings.topK}, the owner's ${row.owner.full} of ${row.owner.latency.count + row.owner.latency.failed} (target all) ${full ? '✓' : '✗'}`,
    ];
    if (failed > 0) parts.push(`${failed} failed ✗`);
    return {
      met,
      text: `${row.mode} search for the member on ${label}: **${met ? 'met' : 'not met'}**: ${parts.join('; ')}`,
    };
  });
  const load = outcome.accessLoad;
  const machine =
    load === undefined
      ? []
      : [
          '',
          `Meanwhile the machine was busy ${load.busyCores === undefined ? '(not measured)' : `${load.busyCores.toFixed(1)} cores' worth of ${os.availableParallelism()} on average`}, this benchmark's own processes included`,
          `(load average ${load.loadBefore.toFixed(1)} at the start, ${load.loadAfter.toFixed(1)} at the end).`,
        ];
  return {
    lines: [
      `The owner and the member, ${formatNumber(outcome.access[0]?.member.latency.count ?? 0)} queries each, one search at a time (who goes first alternating):`,
      '',
      table,
      ...machine,
    ],
    checks,
  };
}

/** Plan lines without the query vector's hundreds of numbers. */
function withoutVectors(plan: readonly string[]): string[] {
  return plan.map((line) => line.replace(/'\[[^\]]*\]'/g, "'[…]'"));
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}

function report(
  settings: SearchSettings,
  available: AvailableDatabases,
  outcomes: readonly DatabaseOutcome[],
  queryCount: number,
  startedAt: Date,
): { markdown: string; checks: Check[] } {
  const sections = outcomes.map((outcome) => databaseSection(outcome, settings));
  const checks = sections.flatMap((section) => section.checks);
  const efSearch = outcomes[0]?.efSearch ?? parseConfig({}).search.efSearch;
  const pglite = outcomes.some((outcome) => outcome.database === 'pglite');
  const lines = [
    '## Search: latency on a 100,000-chunk team (`bench/search`)',
    '',
    `Run ${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC on ${environmentLine()}.`,
    `Command: \`${commandLine(`bench:${NAME}`, `bench/${NAME}/run.ts`)}\`; took ${Math.round((Date.now() - startedAt.getTime()) / 1000)} s.`,
    ...postgresLine(available),
    '',
    ...teamDataDescription(settings.data),
    '',
    `The service runs as users run it (\`node dist/src/main.js\`, \`LOG_LEVEL=info\`, so it says when the big team's postings are in memory, which measuring waits for; embeddings on, default search settings:`,
    `\`SEARCH_DENSE_WEIGHT\` ${parseConfig({}).search.denseWeight}, \`SEARCH_EF_SEARCH\` ${efSearch}). ${queryCount} SciFact test queries go to \`POST /v1/search\` (\`top_k\` ${settings.topK})`,
    `in each mode, after ${settings.warmup} warm-up queries: one client at a time, then ${settings.clients} clients at once (each sends its next query`,
    'when its last is answered). Times run from sending the request to reading the whole answer, in this process. `short`',
    `counts searches answered with fewer than ${settings.topK} results. The raw query is what dense search cannot beat: from a pg pool`,
    `in this process, \`SELECT chunk_id FROM chunk_embeddings WHERE model = '…' AND team_id = $1 ORDER BY embedding::vector(${settings.data.dimensions}) <=> $2 LIMIT ${settings.topK}\``,
    `with \`hnsw.iterative_scan = strict_order\` and \`hnsw.ef_search = ${efSearch}\`, on the same team's vectors, timed before and after the`,
    "service's passes; `p50 vs raw` divides by the mean of those two p50s.",
    '',
    "The rows above are the owner's. Then, in each mode, the owner and the member search the same queries after",
    `${settings.warmup} warm-up queries each: query by query, one search at a time, the owner first for one query and the member first`,
    `for the next. \`full top_k\` counts the responses with ${settings.topK} results. The member's searches return only what the`,
    "member may open: the access lists' filter is inside the postings scan and the HNSW walk, before ranking.",
    "The EXPLAIN ANALYZE plans below are of the service's own lexical statement for that reader, run once before it is",
    "explained, so that common terms' document frequencies are remembered, as the service has them by then.",
    ...(pglite
      ? [
          '',
          `PGlite holds ${formatNumber(settings.data.pgliteScale * 100)} % of those chunk counts: storing and indexing the full data in its one`,
          'WebAssembly thread would take far longer than this benchmark may run. Its raw query runs in this process once',
          'the service has stopped (PGlite serves one process), one query at a time.',
        ]
      : []),
    '',
    ...sections.flatMap((section) => [...section.lines, '']),
    `Targets (issue), on PostgreSQL, one client at a time: p50 ≤ ${TARGETS.p50Ms} ms, p99 ≤ ${TARGETS.p99Ms} ms, and a p50 at most`,
    `${TARGETS.vsRaw}× the raw vector query's. PGlite's figures are for information. On both databases, in each mode: the`,
    `member's p50 at most ${MEMBER_VS_OWNER}× the owner's in the same run, with the full \`top_k\` in every response.`,
    '',
    ...verdictLines(checks, available.skipped),
  ];
  return { markdown: lines.join('\n'), checks };
}

async function main(): Promise<void> {
  const settings = parseSettings(process.argv.slice(2), process.env);
  if (settings.forgetData) {
    await forgetKeptData(progress);
    return;
  }
  const startedAt = new Date();
  const available = await availableDatabases(settings.databases, progress);
  const corpus = loadScifact(settings.datasetDir);
  const queries = corpus.queries.slice(0, settings.queries);
  const uninstall = installCleanupHandlers(60 * 60 * 1000);
  try {
    if (settings.build) {
      progress('npm run build');
      await buildService();
    }
    const outcomes: DatabaseOutcome[] = [];
    for (const database of available.databases) {
      outcomes.push(await measureOn(settings, available, database, corpus, queries));
    }
    publishSection(
      NAME,
      report(settings, available, outcomes, queries.length, startedAt),
      {
        write: settings.write,
        withheld: settings.fromSource ? 'run from source (--from-source), not the build' : undefined,
      },
      progress,
    );
  } finally {
    await runCleanups();
    uninstall();
  }
}

runBenchmark(NAME, main);

// `npm run bench:eval-scifact` (`npx tsx bench/eval-scifact/run.ts`): retrieval quality of
// POST /v1/search on BEIR SciFact. Uploads the corpus through POST /v1/documents (embeddings on,
// from a fake OpenAI-compatible server's hashing vectors), runs the 300 test queries with top_k
// 100 in each mode (the embedded default without embeddings, lexical, dense, and hybrid at
// several SEARCH_DENSE_WEIGHT values, restarting the service on the same database for each), and
// writes nDCG@10, recall@100 and MRR@10 beside the published figures into the eval-scifact
// section of docs/benchmarks.md. `--help` lists the settings.

import { parseConfig } from '../../src/config.js';
import { FakeOpenAiServer } from '../../test/fakes/fake-openai-server.js';
import { deferCleanup, installCleanupHandlers, runBenchmark, runCleanups } from '../lib/children.js';
import {
  type AvailableDatabases,
  availableDatabases,
  type BenchDatabase,
  type Check,
  createBenchDatabase,
  DATABASE_LABEL,
  type DatabaseName,
  postgresLine,
  verdictLines,
} from '../lib/databases.js';
import { DEFAULT_BENCH_DATABASE_URL } from '../lib/postgres.js';
import { commandLine, environmentLine, formatNumber, markdownTable, publishSection } from '../lib/report.js';
import {
  formatDifference,
  mean,
  ndcgAt,
  type PairedDifference,
  pairedDifference,
  recallAt,
  reciprocalRankAt,
} from '../lib/retrieval-metrics.js';
import { DEFAULT_SCIFACT_DIR, loadScifact, type Scifact, type ScifactQuery } from '../lib/scifact.js';
import { mapConcurrently, type SearchMode, searchOnce } from '../lib/search-client.js';
import { buildService, type RunningServer, startService } from '../lib/service.js';
import { parseFlags, SERVICE_RUN_FLAGS, Settings, serviceRunUsage } from '../lib/settings.js';
import { sleep } from '../lib/stats.js';
import { scifactUploads, uploadAndWait, uploadBatches } from '../lib/upload.js';
import { type BenchUser, registerUser } from '../lib/users.js';

const NAME = 'eval-scifact';
const EMBEDDING_MODEL = 'bench-embedding';
const TOP_K = 100;
/** The issue's target for the embedded default (lexical, no embeddings). */
const TARGET_NDCG = 0.69;

/** Published nDCG@10 on the BEIR SciFact test split, as DESIGN.md quotes them. */
const PUBLISHED: readonly { ranking: string; ndcg: number; source: string }[] = [
  { ranking: 'BM25', ndcg: 0.665, source: 'BEIR paper (Thakur et al. 2021), Elasticsearch' },
  { ranking: 'BM25 flat', ndcg: 0.679, source: 'Anserini / Pyserini BEIR regressions' },
  { ranking: 'BM25 (bm25s)', ndcg: 0.687, source: 'bm25s (Lù 2024)' },
  { ranking: 'all-MiniLM-L6-v2', ndcg: 0.645, source: 'MTEB / sentence-transformers' },
  { ranking: 'bge-small-en-v1.5', ndcg: 0.713, source: 'MTEB (BAAI)' },
  { ranking: 'bge-base-en-v1.5', ndcg: 0.741, source: 'MTEB (BAAI)' },
  { ranking: 'RRF of BM25 and bge-base-en-v1.5', ndcg: 0.742, source: 'as quoted in DESIGN.md' },
  {
    ranking: 'BM25 with Porter stemming (plain, in memory)',
    ndcg: 0.683,
    source: 'measured on this copy (issue)',
  },
  {
    ranking: 'Universal Sentence Encoder lite alone',
    ndcg: 0.217,
    source: 'measured on this copy (DESIGN.md)',
  },
  { ranking: 'plain RRF of BM25 and USE lite', ndcg: 0.441, source: 'measured on this copy (DESIGN.md)' },
];

const USAGE = `npx tsx bench/eval-scifact/run.ts [options]   (npm run bench:eval-scifact -- [options])

Uploads BEIR SciFact through POST /v1/documents and scores POST /v1/search on its test queries
(nDCG@10, recall@100, MRR@10) per retrieval mode and hybrid weight.

Options (or the BENCH_* variable in brackets):
  --databases LIST    pglite and/or postgres (BENCH_DATABASES, default pglite)
  --weights LIST      SEARCH_DENSE_WEIGHT values for hybrid search (BENCH_WEIGHTS,
                      default 0,0.1,0.2,0.3,0.5,1; the service's default weight is always added)
  --queries N         only the first N test queries, for a quick check (BENCH_QUERIES; default all 300)
  --dimensions N      vector length of the fake embeddings (BENCH_DIMENSIONS, default 384)
  --concurrency N     searches in flight at once (BENCH_CONCURRENCY, default 4)
  --batch N           documents per upload request (BENCH_BATCH, default 250)
  --timeout S         give up indexing after S seconds (BENCH_TIMEOUT, default 900)
  --dataset DIR       the SciFact copy (BENCH_SCIFACT_DIR, default ${DEFAULT_SCIFACT_DIR})
${serviceRunUsage(22)}
  -h, --help          this text
  PostgreSQL: BENCH_DATABASE_URL (default ${DEFAULT_BENCH_DATABASE_URL})`;

interface EvalSettings {
  readonly databases: readonly DatabaseName[];
  readonly weights: readonly number[];
  readonly queries: number | undefined;
  readonly dimensions: number;
  readonly concurrency: number;
  readonly batchSize: number;
  readonly timeoutSeconds: number;
  readonly datasetDir: string;
  readonly build: boolean;
  readonly fromSource: boolean;
  readonly write: boolean;
}

function parseSettings(argv: readonly string[], env: NodeJS.ProcessEnv): EvalSettings {
  const values = parseFlags(
    argv,
    ['databases', 'weights', 'queries', 'dimensions', 'concurrency', 'batch', 'timeout', 'dataset'],
    [...SERVICE_RUN_FLAGS],
    USAGE,
  );
  const read = new Settings(values, env, USAGE);
  return {
    databases: read.list('databases', 'BENCH_DATABASES', ['pglite'], ['pglite', 'postgres']),
    weights: read.numbers('weights', 'BENCH_WEIGHTS', [0, 0.1, 0.2, 0.3, 0.5, 1], 0, 100),
    queries: read.optionalNumber('queries', 'BENCH_QUERIES', 1, 100_000),
    dimensions: read.number('dimensions', 'BENCH_DIMENSIONS', 384, 1, 2000),
    concurrency: read.number('concurrency', 'BENCH_CONCURRENCY', 4, 1, 64),
    batchSize: read.number('batch', 'BENCH_BATCH', 250, 1, 500),
    timeoutSeconds: read.number('timeout', 'BENCH_TIMEOUT', 900, 10, 24 * 3600),
    datasetDir: read.string('dataset', 'BENCH_SCIFACT_DIR', DEFAULT_SCIFACT_DIR),
    ...read.serviceRun(),
  };
}

function progress(message: string): void {
  process.stderr.write(`[bench:${NAME}] ${message}\n`);
}

/** One way of ranking, scored over the queries. */
interface QualityRun {
  readonly key: string;
  readonly label: string;
  readonly settings: string;
  /** Set for hybrid rows. */
  readonly weight: number | undefined;
  readonly ndcg: readonly number[];
  readonly recall: readonly number[];
  readonly mrr: readonly number[];
  /** Distinct documents among the TOP_K chunks, averaged over the queries. */
  readonly documentsPerQuery: number;
  readonly meanMs: number;
}

interface DatabaseOutcome {
  readonly database: DatabaseName;
  readonly documents: number;
  readonly chunks: number;
  readonly notIndexed: number;
  readonly indexingSeconds: number;
  readonly runs: readonly QualityRun[];
}

/** Runs the queries through POST /v1/search and scores the document rankings. */
async function scoreQueries(
  baseUrl: string,
  user: BenchUser,
  dataset: Scifact,
  queries: readonly ScifactQuery[],
  mode: SearchMode | undefined,
  concurrency: number,
): Promise<Omit<QualityRun, 'key' | 'label' | 'settings' | 'weight'>> {
  const answers = await mapConcurrently(queries, concurrency, (query) =>
    searchOnce(baseUrl, user.headers, {
      query: query.text,
      top_k: TOP_K,
      ...(mode === undefined ? {} : { mode }),
    }),
  );
  const ndcg: number[] = [];
  const recall: number[] = [];
  const mrr: number[] = [];
  let documents = 0;
  answers.forEach(({ results }, index) => {
    const query = queries[index] as ScifactQuery;
    // Results are chunks: a document ranks where its first chunk does.
    const ranking = [...new Set(results.map((result) => result.external_id))];
    documents += ranking.length;
    const relevant = dataset.judgements.get(query.id) ?? new Map<string, number>();
    ndcg.push(ndcgAt(10, ranking, relevant));
    recall.push(recallAt(TOP_K, ranking, relevant));
    mrr.push(reciprocalRankAt(10, ranking, relevant));
  });
  return {
    ndcg,
    recall,
    mrr,
    documentsPerQuery: documents / Math.max(1, queries.length),
    meanMs: mean(answers.map((answer) => answer.ms)),
  };
}

async function evaluateOn(
  settings: EvalSettings,
  available: AvailableDatabases,
  name: DatabaseName,
  dataset: Scifact,
  queries: readonly ScifactQuery[],
  weights: readonly number[],
): Promise<DatabaseOutcome> {
  const label = DATABASE_LABEL[name];
  const database: BenchDatabase = await createBenchDatabase(name, 'bench_eval', available.adminUrl, progress);
  const fake = await FakeOpenAiServer.start({ dimensions: settings.dimensions, delayMsPerRequest: 0 });
  const closeFake = deferCleanup(() => fake.close());
  const embeddings = {
    EMBEDDING_PROVIDER: 'openai',
    EMBEDDING_BASE_URL: fake.baseUrl,
    EMBEDDING_MODEL,
  };
  const base = { LOG_LEVEL: 'warn', ...database.env };
  let service: RunningServer | undefined;
  const start = async (what: string, env: Record<string, string>) => {
    progress(`${label}: starting the service (${what})`);
    service = await startService(`service (${label}, ${what})`, { ...base, ...env }, [], settings.fromSource);
    return service;
  };
  const stop = async () => {
    await service?.stop();
    service = undefined;
  };
  const runs: QualityRun[] = [];
  const record = async (
    run: Omit<QualityRun, 'ndcg' | 'recall' | 'mrr' | 'documentsPerQuery' | 'meanMs'>,
    mode: SearchMode | undefined,
    user: BenchUser,
  ) => {
    if (service === undefined) throw new Error('no service running');
    const scored = await scoreQueries(service.url, user, dataset, queries, mode, settings.concurrency);
    runs.push({ ...run, ...scored });
    progress(
      `${label}: ${run.label}${run.weight === undefined ? '' : ` ${run.weight}`}: nDCG@10 ${mean(scored.ndcg).toFixed(4)}, recall@100 ${mean(scored.recall).toFixed(4)}, MRR@10 ${mean(scored.mrr).toFixed(4)} (${scored.meanMs.toFixed(1)} ms a query)`,
    );
  };
  try {
    const [firstWeight = 0, ...otherWeights] = weights;
    const first = await start(`embeddings on, SEARCH_DENSE_WEIGHT=${firstWeight}`, {
      ...embeddings,
      SEARCH_DENSE_WEIGHT: String(firstWeight),
    });
    const user = await registerUser(first.url, `eval-${name}`);
    // Let the worker probe the model's dimension and create its index before the uploads.
    const deadline = Date.now() + 30_000;
    while (fake.requests.length === 0 && Date.now() < deadline) await sleep(50);
    const uploads = scifactUploads(dataset.documents);
    const { bodies, sizes } = uploadBatches(uploads, settings.batchSize);
    progress(`${label}: uploading ${formatNumber(uploads.length)} documents in ${bodies.length} requests`);
    const outcome = await uploadAndWait(first.url, user.headers, bodies, sizes, {
      inFlight: 2,
      timeoutSeconds: settings.timeoutSeconds,
      alive: () => first.child.process.exitCode === null && first.child.process.signalCode === null,
      progress,
    });
    const chunks = outcome.jobs.reduce((sum, job) => sum + job.chunks, 0);
    const notIndexed = outcome.jobs.reduce((sum, job) => sum + job.failed + job.skipped, 0);
    const indexingSeconds =
      (Math.max(...outcome.jobs.map((job) => job.finishedAtMs)) - outcome.startedAtMs) / 1000;
    progress(
      `${label}: ${formatNumber(uploads.length)} documents, ${formatNumber(chunks)} chunks indexed in ${indexingSeconds.toFixed(1)} s (${notIndexed} not indexed)`,
    );
    for (const job of outcome.jobs)
      for (const problem of job.problems.slice(0, 3)) progress(`${label}: ${problem}`);

    await record(
      { key: 'lexical', label: 'lexical', settings: '`mode: "lexical"`', weight: undefined },
      'lexical',
      user,
    );
    await record(
      {
        key: 'dense',
        label: 'dense',
        settings: `\`mode: "dense"\`, hashing vectors (${settings.dimensions} dimensions)`,
        weight: undefined,
      },
      'dense',
      user,
    );
    const hybrid = (weight: number) => ({
      key: `hybrid-${weight}`,
      label: 'hybrid',
      settings: `\`SEARCH_DENSE_WEIGHT=${weight}\``,
      weight,
    });
    await record(hybrid(firstWeight), 'hybrid', user);
    await stop();
    for (const weight of otherWeights) {
      await start(`SEARCH_DENSE_WEIGHT=${weight}`, { ...embeddings, SEARCH_DENSE_WEIGHT: String(weight) });
      await record(hybrid(weight), 'hybrid', user);
      await stop();
    }
    await start('embedded default: no embeddings', {});
    await record(
      {
        key: 'default',
        label: 'embedded default',
        settings: 'no `EMBEDDING_PROVIDER`, no `mode`',
        weight: undefined,
      },
      undefined,
      user,
    );
    await stop();
    return { database: name, documents: uploads.length, chunks, notIndexed, indexingSeconds, runs };
  } finally {
    await stop();
    await closeFake();
    await database.release();
  }
}

function fixed(value: number): string {
  return value.toFixed(3);
}

function differenceCell(difference: PairedDifference | undefined): string {
  return difference === undefined ? '' : formatDifference(difference);
}

/** Above zero beyond its confidence interval. */
function clearlyAbove(difference: PairedDifference): boolean {
  return difference.mean - difference.halfWidth > 0;
}

function databaseSection(
  outcome: DatabaseOutcome,
  defaultWeight: number,
  queryCount: number,
  fullQuerySet: boolean,
): { lines: string[]; checks: Check[] } {
  const label = DATABASE_LABEL[outcome.database];
  const find = (key: string) => outcome.runs.find((run) => run.key === key);
  const embedded = find('default');
  const lexical = find('lexical');
  const dense = find('dense');
  const hybrids = outcome.runs
    .filter((run) => run.weight !== undefined)
    .sort((a, b) => (a.weight ?? 0) - (b.weight ?? 0));
  const order = [embedded, lexical, dense, ...hybrids].filter((run): run is QualityRun => run !== undefined);
  const versus = (run: QualityRun, other: QualityRun | undefined) =>
    other === undefined || run === other ? undefined : pairedDifference(run.ndcg, other.ndcg);
  const table = markdownTable(
    [
      'Ranking',
      'Settings',
      'nDCG@10',
      'recall@100',
      'MRR@10',
      'vs lexical, nDCG@10',
      'vs dense, nDCG@10',
      'documents / query',
      'ms / query',
    ],
    order.map((run) => [
      run.weight === undefined
        ? run.label
        : `hybrid, weight ${run.weight}${run.weight === defaultWeight ? ' (default)' : ''}`,
      run.settings,
      fixed(mean(run.ndcg)),
      fixed(mean(run.recall)),
      fixed(mean(run.mrr)),
      run.key === 'lexical' ? '' : differenceCell(versus(run, lexical)),
      run.key === 'dense' || run.key === 'default' || run.key === 'lexical'
        ? ''
        : differenceCell(versus(run, dense)),
      run.documentsPerQuery.toFixed(1),
      run.meanMs.toFixed(1),
    ]),
    ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
  );
  const checks: Check[] = [];
  if (embedded !== undefined) {
    const value = mean(embedded.ndcg);
    const met = value >= TARGET_NDCG;
    checks.push({
      met,
      text: `${label}, embedded default (lexical, no embeddings): **${met ? 'met' : 'not met'}**: nDCG@10 ${value.toFixed(3)} (target ≥ ${TARGET_NDCG})${fullQuerySet ? '' : ` on ${queryCount} queries only`} ${met ? '✓' : '✗'}`,
    });
  }
  const atDefault = hybrids.find((run) => run.weight === defaultWeight);
  if (atDefault !== undefined && lexical !== undefined && dense !== undefined) {
    const better = mean(lexical.ndcg) >= mean(dense.ndcg) ? lexical : dense;
    const difference = pairedDifference(atDefault.ndcg, better.ndcg);
    const met = mean(atDefault.ndcg) >= mean(better.ndcg);
    checks.push({
      met,
      text: `${label}, hybrid at the default weight (${defaultWeight}): **${met ? 'met' : 'not met'}**: nDCG@10 ${fixed(mean(atDefault.ndcg))} against ${fixed(mean(better.ndcg))} for ${better.label} alone, the better of its inputs (paired difference ${formatDifference(difference)}) ${met ? '✓' : '✗'}`,
    });
  }
  const findings: string[] = [];
  if (lexical !== undefined && hybrids.length > 0) {
    const best = hybrids.reduce((top, run) => (mean(run.ndcg) > mean(top.ndcg) ? run : top));
    const positive = hybrids.filter((run) => (run.weight ?? 0) > 0);
    const beating = positive.filter((run) => clearlyAbove(pairedDifference(run.ndcg, lexical.ndcg)));
    const bestDifference = pairedDifference(best.ndcg, lexical.ndcg);
    findings.push(
      `Best hybrid weight here: ${best.weight} (nDCG@10 ${fixed(mean(best.ndcg))}, ${formatDifference(bestDifference)} against lexical alone).`,
      beating.length > 0
        ? `Weights that beat lexical alone beyond their 95 % interval: ${beating.map((run) => run.weight).join(', ')}.`
        : `No weight above 0 beats lexical alone beyond its 95 % interval with this embedder${
            positive.length === 0
              ? ''
              : `; ${positive
                  .map(
                    (run) => `${run.weight}: ${formatDifference(pairedDifference(run.ndcg, lexical.ndcg))}`,
                  )
                  .join(', ')}`
          }.`,
    );
  }
  const lines = [
    `### ${label}`,
    '',
    `${formatNumber(outcome.documents)} documents uploaded, ${formatNumber(outcome.chunks)} chunks, ${outcome.notIndexed} not indexed; indexing took ${outcome.indexingSeconds.toFixed(1)} s (with embeddings).`,
    '',
    table,
    '',
    ...findings,
  ];
  return { lines, checks };
}

function report(
  settings: EvalSettings,
  available: AvailableDatabases,
  outcomes: readonly DatabaseOutcome[],
  queryCount: number,
  fullQuerySet: boolean,
  defaultWeight: number,
  startedAt: Date,
): { markdown: string; checks: Check[] } {
  const sections = outcomes.map((outcome) =>
    databaseSection(outcome, defaultWeight, queryCount, fullQuerySet),
  );
  const checks = sections.flatMap((section) => section.checks);
  const published = markdownTable(
    ['Published or measured elsewhere (SciFact test)', 'nDCG@10', 'Source'],
    PUBLISHED.map((row) => [row.ranking, fixed(row.ndcg), row.source]),
    ['l', 'r', 'l'],
  );
  const lines = [
    '## Retrieval quality: SciFact through the search API (`bench/eval-scifact`)',
    '',
    `Run ${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC on ${environmentLine()}.`,
    `Command: \`${commandLine(`bench:${NAME}`, `bench/${NAME}/run.ts`)}\`; took ${Math.round((Date.now() - startedAt.getTime()) / 1000)} s.`,
    ...postgresLine(available),
    '',
    `BEIR SciFact's corpus is uploaded as JSON documents (external id = the corpus \`_id\`, title, text) to`,
    '`POST /v1/documents` and indexed by the service as users run it, with `EMBEDDING_PROVIDER=openai` pointed',
    `at a fake OpenAI-compatible server (\`test/fakes/fake-openai-server.ts\`) whose vectors (${settings.dimensions} dimensions)`,
    'hash words and character trigrams: the one embedder available here, a lexical one, not a semantic model.',
    `Then ${fullQuerySet ? `the ${queryCount} test queries` : `the first ${queryCount} test queries`} (\`qrels/test.tsv\`) go to \`POST /v1/search\` with \`top_k\` ${TOP_K}; results are chunks,`,
    'so a document ranks where its first chunk does, and `documents / query` counts the distinct documents the',
    `${TOP_K} chunks hold. nDCG@10 is trec_eval's (as BEIR reports it: gain = grade, log2 discount), recall@100 counts`,
    'relevant documents among those documents, MRR@10 is the reciprocal rank of the first relevant one within 10.',
    'Lexical and dense rows use the `mode` field; each hybrid row restarts the service on the same database with',
    'its `SEARCH_DENSE_WEIGHT` (weighted reciprocal rank fusion, lexical weighing 1, `SEARCH_RRF_K` 60); the',
    '`embedded default` row restarts it without `EMBEDDING_PROVIDER` and sends no `mode`, as `npm start` answers.',
    '`vs …` columns are the mean per-query difference in nDCG@10, ± the half-width of its 95 % confidence',
    `interval (paired over the queries). \`ms / query\` is the mean latency with ${settings.concurrency} searches in flight (bench/search measures speed).`,
    '',
    ...sections.flatMap((section) => [...section.lines, '']),
    published,
    '',
    `Targets (issue): the embedded default reaches nDCG@10 ≥ ${TARGET_NDCG}; with embeddings on, hybrid search at the`,
    `configured default weight (\`SEARCH_DENSE_WEIGHT\` ${defaultWeight}) never scores below the better of its two inputs.`,
    '',
    ...verdictLines(checks, available.skipped),
  ];
  return { markdown: lines.join('\n'), checks };
}

async function main(): Promise<void> {
  const settings = parseSettings(process.argv.slice(2), process.env);
  const startedAt = new Date();
  const defaultWeight = parseConfig({}).search.denseWeight;
  const weights = [...new Set([...settings.weights, defaultWeight])].sort((a, b) => a - b);
  const available = await availableDatabases(settings.databases, progress);
  const dataset = loadScifact(settings.datasetDir);
  const queries = dataset.queries.slice(0, settings.queries ?? dataset.queries.length);
  const uninstall = installCleanupHandlers(
    (available.databases.length * (settings.timeoutSeconds + 60 * (weights.length + 2)) + 300) * 1000,
  );
  try {
    if (settings.build) {
      progress('npm run build');
      await buildService();
    }
    const outcomes: DatabaseOutcome[] = [];
    for (const database of available.databases) {
      outcomes.push(await evaluateOn(settings, available, database, dataset, queries, weights));
    }
    publishSection(
      NAME,
      report(
        settings,
        available,
        outcomes,
        queries.length,
        queries.length === dataset.queries.length,
        defaultWeight,
        startedAt,
      ),
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

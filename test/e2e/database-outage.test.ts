import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { IngestSummary } from '../../src/cli/ingest.js';
import { HANG_BOUND_MS } from '../helpers/hang-bound.js';
import { type CliRun, runCliCaptured } from '../helpers/run-cli.js';
import {
  registerOverHttp,
  type ServiceProcess,
  startServiceProcess,
  startWorkerProcess,
} from '../helpers/service-process.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { createTestDatabase, type TestDatabase, testDatabaseKind } from '../helpers/test-database.js';

const DOCUMENTS = 2000;
const OUTAGE_MS = 6000;
const UNAVAILABLE = 'The database is unavailable; try again shortly';
const SEARCH = JSON.stringify({ query: 'shipment warehouse' });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * PostgreSQL restarted in the middle of an upload (issue 12): between the service and its
 * database a proxy drops every connection and refuses new ones for 6 s, while the CLI uploads
 * 2,000 documents and the service indexes them.
 */
describe.skipIf(testDatabaseKind() !== 'postgres')('a database outage in the middle of an upload', () => {
  let workDir: string;
  let corpus: string;
  const cleanups: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    workDir = await mkdtemp(path.join(tmpdir(), 'database-outage-'));
    corpus = path.join(workDir, 'corpus.jsonl');
    const lines = Array.from({ length: DOCUMENTS }, (_, index) =>
      JSON.stringify({
        external_id: `doc-${index}`,
        title: `Note ${index}`,
        text: `Note ${index} records that shipment ${index * 7} left the warehouse in bay ${index % 40}. The courier signed for parcel ${index} at dawn.`,
      }),
    );
    await writeFile(corpus, `${lines.join('\n')}\n`);
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
  });
  afterAll(async () => {
    await rm(workDir, { recursive: true, force: true });
  });

  async function setUp(): Promise<{ database: TestDatabase; proxy: TcpProxy; direct: pg.Client }> {
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    if (database.location.kind !== 'postgres') throw new Error('needs PostgreSQL');
    const url = new URL(database.location.url);
    const proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    cleanups.push(() => proxy.close());
    // The test's own view of the database, around the proxy.
    const direct = new pg.Client({ connectionString: database.location.url });
    await direct.connect();
    cleanups.push(() => direct.end());
    return { database, proxy, direct };
  }

  async function ingest(url: string, token: string): Promise<CliRun & { summary: IngestSummary }> {
    const run = await runCliCaptured(
      ['ingest', corpus, '--url', url, '--json', '--batch-size', '40', '--concurrency', '1'],
      { env: { KNOWLEDGE_TOKEN: token }, pollIntervalMs: 250, retryBaseMs: undefined },
    );
    return { ...run, summary: JSON.parse(run.stdout) as IngestSummary };
  }

  async function indexedCount(direct: pg.Client): Promise<number> {
    const { rows } = await direct.query(`SELECT count(*)::int AS n FROM documents WHERE status = 'indexed'`);
    return (rows[0] as { n: number }).n;
  }

  /** Cuts the database off for OUTAGE_MS once some documents are in, probing the API meanwhile. */
  async function outage(proxy: TcpProxy, direct: pg.Client, apiUrl: string, token: string) {
    const deadline = Date.now() + HANG_BOUND_MS;
    while ((await indexedCount(direct)) < 200) {
      if (Date.now() > deadline) throw new Error('indexing did not start');
      await sleep(100);
    }
    const before = await indexedCount(direct);
    await proxy.cut();
    const cutAt = Date.now();
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const requests: { path: string; init: RequestInit }[] = [
      { path: '/v1/search', init: { method: 'POST', headers, body: SEARCH } },
      { path: '/v1/documents?limit=5', init: { headers } },
      { path: '/readyz', init: {} },
    ];
    const answers: { path: string; status: number; ms: number; retryAfter: string | null; body: unknown }[] =
      [];
    const health: number[] = [];
    while (Date.now() - cutAt < OUTAGE_MS - 600) {
      for (const { path, init } of requests) {
        const started = Date.now();
        const response = await fetch(`${apiUrl}${path}`, { ...init, signal: AbortSignal.timeout(10_000) });
        answers.push({
          path,
          status: response.status,
          ms: Date.now() - started,
          retryAfter: response.headers.get('retry-after'),
          body: await response.json(),
        });
      }
      health.push((await fetch(`${apiUrl}/healthz`)).status);
      await sleep(300);
    }
    await sleep(Math.max(0, OUTAGE_MS - (Date.now() - cutAt)));
    await proxy.restore();
    const restoredAt = Date.now();
    let searchBackMs: number | undefined;
    while (searchBackMs === undefined && Date.now() - restoredAt < 30_000) {
      const response = await fetch(`${apiUrl}/v1/search`, { method: 'POST', headers, body: SEARCH });
      if (response.status === 200) searchBackMs = Date.now() - restoredAt;
      else await sleep(250);
    }
    console.info(
      `outage: ${before} indexed before the cut, ${answers.length} answers during it, search back after ${searchBackMs} ms`,
    );
    return { before, answers, health, searchBackMs };
  }

  async function expectEveryDocumentOnce(direct: pg.Client): Promise<void> {
    const { rows: documents } = await direct.query(
      `SELECT count(*)::int AS total, count(DISTINCT external_id)::int AS distinct_ids,
              count(*) FILTER (WHERE status = 'indexed')::int AS indexed,
              sum(chunk_count)::int AS chunk_counts
         FROM documents`,
    );
    expect(documents[0]).toMatchObject({ total: DOCUMENTS, distinct_ids: DOCUMENTS, indexed: DOCUMENTS });
    const { rows: chunks } = await direct.query(
      `SELECT count(*)::int AS total, count(DISTINCT (document_id, position))::int AS distinct_positions FROM chunks`,
    );
    expect(chunks[0]?.total).toBe(documents[0]?.chunk_counts);
    expect(chunks[0]?.distinct_positions).toBe(chunks[0]?.total);
    // Each file was indexed by one attempt: none found "unchanged" by an attempt that re-ran it.
    const { rows: items } = await direct.query(
      `SELECT status, count(*)::int AS n FROM index_job_items GROUP BY status ORDER BY status`,
    );
    expect(items).toEqual([{ status: 'indexed', n: DOCUMENTS }]);
  }

  function expectQuickUnavailableAnswers(result: Awaited<ReturnType<typeof outage>>): void {
    expect(result.answers.length).toBeGreaterThanOrEqual(6);
    for (const answer of result.answers) {
      expect(answer, JSON.stringify(answer)).toMatchObject({ status: 503, body: { detail: UNAVAILABLE } });
      expect(Number(answer.retryAfter)).toBeGreaterThan(0);
      // Well within REQUEST_TIMEOUT_MS (30 s): nothing waits for a connection that will not come.
      expect(answer.ms).toBeLessThan(3000);
    }
    expect(new Set(result.health)).toEqual(new Set([200]));
    expect(result.searchBackMs).toBeDefined();
    expect(result.searchBackMs).toBeLessThan(20_000);
  }

  /** One warning when the connection is lost and one when it is back, not one per failed query. */
  function expectOutageLoggedOnce(service: ServiceProcess): void {
    const lines = service.output().split('\n');
    const lost = lines.filter((line) => line.includes('database connection lost'));
    const regained = lines.filter((line) => line.includes('database connection regained'));
    expect(lost).toHaveLength(1);
    expect(regained).toHaveLength(1);
    // At warn (pino's 40), the end with how long it lasted (the proxy was cut for OUTAGE_MS).
    expect(JSON.parse(lost[0] ?? '{}')).toMatchObject({ level: 40, component: 'database' });
    const end = JSON.parse(regained[0] ?? '{}') as { level?: number; outageMs?: number };
    expect(end.level).toBe(40);
    expect(end.outageMs).toBeGreaterThanOrEqual(OUTAGE_MS / 2);
    expect(service.output()).not.toMatch(/Unhandled|uncaught/i);
  }

  it('one process: stays up, answers 503 meanwhile, recovers by itself, indexes every document once', async () => {
    const { proxy, direct, database } = await setUp();
    if (database.location.kind !== 'postgres') throw new Error('needs PostgreSQL');
    const service = await startServiceProcess({
      DATABASE_URL: proxy.urlThrough(database.location.url),
      ENCRYPTION_KEY: 'ab'.repeat(32),
      LOG_LEVEL: 'warn',
    });
    cleanups.push(() => service.stop('SIGKILL'));
    const token = await registerOverHttp(service.url, 'outage-one');

    const upload = ingest(service.url, token);
    const result = await outage(proxy, direct, service.url, token);
    expect(result.before).toBeLessThan(DOCUMENTS);
    const { code, summary, stderr } = await upload;
    expect(code).toBe(0);
    expect(summary).toMatchObject({ indexed: DOCUMENTS, failed: 0 });
    // Its uploads or job polls met the outage and waited it out, saying so once.
    expect(stderr.match(/service unavailable/g)).toHaveLength(1);

    expect(service.child.exitCode).toBeNull();
    expectQuickUnavailableAnswers(result);
    await expectEveryDocumentOnce(direct);
    expectOutageLoggedOnce(service);
    expect(await service.stop()).toBe(0);
  }, 900_000);

  it('API and worker processes apart: both ride it out', async () => {
    const { proxy, direct, database } = await setUp();
    if (database.location.kind !== 'postgres') throw new Error('needs PostgreSQL');
    const env = {
      DATABASE_URL: proxy.urlThrough(database.location.url),
      ENCRYPTION_KEY: 'cd'.repeat(32),
      LOG_LEVEL: 'warn',
    };
    const api = await startServiceProcess({ ...env, ROLE: 'api' });
    cleanups.push(() => api.stop('SIGKILL'));
    const worker = await startWorkerProcess(env);
    cleanups.push(() => worker.stop('SIGKILL'));
    const token = await registerOverHttp(api.url, 'outage-apart');

    const upload = ingest(api.url, token);
    const result = await outage(proxy, direct, api.url, token);
    const { code, summary, stderr } = await upload;
    expect(code).toBe(0);
    expect(summary).toMatchObject({ indexed: DOCUMENTS, failed: 0 });
    // Its uploads or job polls met the outage and waited it out, saying so once.
    expect(stderr.match(/service unavailable/g)).toHaveLength(1);

    expect(api.child.exitCode).toBeNull();
    expect(worker.child.exitCode).toBeNull();
    expectQuickUnavailableAnswers(result);
    await expectEveryDocumentOnce(direct);
    expectOutageLoggedOnce(api);
    expectOutageLoggedOnce(worker);
    expect(await api.stop()).toBe(0);
    expect(await worker.stop()).toBe(0);
  }, 900_000);
});

import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MEMORY_INDEX_LOADED } from '../../src/retrieval/lexical-index/team-lexical-indexes.js';
import { HANG_BOUND_MS } from '../helpers/hang-bound.js';
import {
  registerOverHttp,
  type ServiceProcess,
  startServiceProcess,
  startWorkerProcess,
} from '../helpers/service-process.js';
import { createTestDatabase, type TestDatabase, testDatabaseKind } from '../helpers/test-database.js';
import { threadNicenesses } from '../helpers/thread-niceness.js';

// Several processes share one database only on PostgreSQL: PGlite serves one process.
describe.skipIf(testDatabaseKind() !== 'postgres')('API and worker processes apart (--role)', () => {
  let database: TestDatabase;
  let env: Record<string, string>;
  beforeAll(async () => {
    database = await createTestDatabase();
    if (database.location.kind !== 'postgres') throw new Error('needs PostgreSQL');
    env = { DATABASE_URL: database.location.url, ENCRYPTION_KEY: 'ef'.repeat(32), LOG_LEVEL: 'warn' };
  });
  afterAll(async () => {
    await database.drop();
  });

  it('queues in the API process and indexes in the worker processes', async () => {
    const api = await startServiceProcess({ ...env, ROLE: 'api' });
    const workers: ServiceProcess[] = [];
    try {
      const token = await registerOverHttp(api.url, 'roles');
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const jobIds: string[] = [];
      for (let batch = 0; batch < 4; batch++) {
        const response = await fetch(`${api.url}/v1/documents`, {
          method: 'POST',
          headers,
          body: JSON.stringify({
            documents: Array.from({ length: 10 }, (_, index) => ({
              external_id: `b${batch}-d${index}`,
              title: `Batch ${batch} document ${index}`,
              text: `Text of document ${index} in batch ${batch}.`,
            })),
          }),
        });
        expect(response.status).toBe(202);
        jobIds.push(((await response.json()) as { result_id: string }).result_id);
      }
      const status = async (id: string) =>
        (await (await fetch(`${api.url}/v1/documents/jobs/${id}`, { headers })).json()) as {
          status: string;
          progress: { indexed: number };
        };
      // The API process runs no jobs.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect((await status(jobIds[0] as string)).status).toBe('queued');

      workers.push(await startWorkerProcess(env), await startWorkerProcess(env));
      const deadline = Date.now() + HANG_BOUND_MS;
      for (const id of jobIds) {
        for (;;) {
          const view = await status(id);
          if (view.status === 'completed') {
            expect(view.progress.indexed).toBe(10);
            break;
          }
          if (Date.now() > deadline) throw new Error(`job ${id} did not complete: ${JSON.stringify(view)}`);
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }
      if (process.platform === 'linux') {
        // Every thread of a worker, those that parsed and stored the documents too, runs at
        // WORKER_NICENESS (10 by default; this process's own if higher, never raised); the API
        // process keeps the niceness it was started with, this process's.
        const ours = os.getPriority();
        for (const worker of workers) {
          expect(new Set(threadNicenesses(worker.child.pid as number))).toEqual(
            new Set([Math.max(ours, 10)]),
          );
        }
        expect(new Set(threadNicenesses(api.child.pid as number))).toEqual(new Set([ours]));
      }
      for (const worker of workers) expect(await worker.stop()).toBe(0);
    } finally {
      for (const worker of workers) worker.child.kill('SIGKILL');
      await api.stop();
    }
  }, 900_000);

  it("searches in the API process's memory find each document once its job says it is indexed, and not once deleted", async () => {
    const api = await startServiceProcess({ ...env, ROLE: 'api', LOG_LEVEL: 'info' });
    const worker = await startWorkerProcess(env);
    try {
      const token = await registerOverHttp(api.url, 'follow');
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const upload = async (externalId: string, text: string) => {
        const response = await fetch(`${api.url}/v1/documents`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ documents: [{ external_id: externalId, title: externalId, text }] }),
        });
        expect(response.status).toBe(202);
        const { result_id } = (await response.json()) as { result_id: string };
        const deadline = Date.now() + HANG_BOUND_MS;
        for (;;) {
          const view = (await (
            await fetch(`${api.url}/v1/documents/jobs/${result_id}`, { headers })
          ).json()) as {
            status: string;
          };
          if (view.status === 'completed') return;
          if (Date.now() > deadline) throw new Error(`job ${result_id} did not complete`);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      };
      const search = async (query: string) => {
        const response = await fetch(`${api.url}/v1/search`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ query, mode: 'lexical', top_k: 10 }),
        });
        expect(response.status).toBe(200);
        return ((await response.json()) as { results: { external_id: string; document_id: number }[] })
          .results;
      };
      await upload('first', 'The first document speaks of apples.');
      expect((await search('apples')).map((hit) => hit.external_id)).toEqual(['first']);
      // That search began loading the team's postings; from then on this process ranks in memory.
      await expect
        .poll(() => api.output().includes(MEMORY_INDEX_LOADED), { timeout: HANG_BOUND_MS })
        .toBe(true);
      for (let round = 0; round < 8; round++) {
        await upload(`round-${round}`, `Round ${round} brings the word marker${round}q.`);
        expect((await search(`marker${round}q`)).map((hit) => hit.external_id)).toEqual([`round-${round}`]);
      }
      const [hit] = await search('marker0q');
      const deleted = await fetch(`${api.url}/v1/documents/${hit?.document_id}`, {
        method: 'DELETE',
        headers,
      });
      expect(deleted.status).toBe(204);
      expect(await search('marker0q')).toEqual([]);
      expect(await worker.stop()).toBe(0);
    } finally {
      worker.child.kill('SIGKILL');
      await api.stop();
    }
  }, 900_000);
});

import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { registerUser, startTestApp, type TestApp } from '../../test/helpers/test-app.js';
import type { Caller } from '../caller.js';
import { finishJob, insertIndexJob, markJobRunning, setItemOutcome } from '../db/repositories/index-jobs.js';
import { LISTED_FAILURES_PER_JOB, listIndexJobs } from './list-index-jobs.js';

let testApp: TestApp;
let caller: Caller;

/** A job of the caller's team with `files` items, each failed, then finished unless `running`. */
async function job(files: number, running = false): Promise<string> {
  const id = randomUUID();
  const sql = testApp.runtime.database.sql;
  const names = Array.from({ length: files }, (_, index) => `file-${index}.pdf`);
  await insertIndexJob(sql, {
    id,
    teamId: caller.teamId,
    connectorId: null,
    kind: 'upload',
    // The caller's own jobs: their files are the caller's to see.
    requestedBy: caller.userId,
    request: {},
    requestHash: null,
    secretsSealed: null,
    items: names.map((name) => ({ externalId: name, name, payload: {} })),
  });
  await markJobRunning(sql, id);
  for (const name of names) await setItemOutcome(sql, id, name, { status: 'failed', reason: 'parse_error' });
  if (!running) await finishJob(sql, id, 'completed', null);
  return id;
}

beforeAll(async () => {
  testApp = await startTestApp();
  const user = await registerUser(testApp.app);
  caller = {
    userId: user.userId,
    teamId: user.teamId,
    email: 'lister@example.com',
    emailVerified: false,
    role: 'owner',
    tokenHash: 'unused',
  };
  for (let index = 0; index < 30; index += 1) await job(index % 8);
});
afterAll(() => testApp.close());

it('reads a page in two statements whatever its size: the jobs, then their counts and failures', async () => {
  const deps = testApp.runtime.deps;
  const sql = testApp.runtime.database.sql;
  // Only the listing's own statements count: the app's background work (the queue's polling)
  // shares the connection, and runs outside this context. On PostgreSQL, the barrier it raises
  // before telling of files done (`writesSearchable`) reads no job: it is not counted.
  const listing = new AsyncLocalStorage<true>();
  const execute = sql.executeSql.bind(sql);
  let statements = 0;
  const executeSql = vi.spyOn(sql, 'executeSql').mockImplementation((text, values) => {
    if (listing.getStore() && !/search_(barriers|followers)/.test(text)) statements += 1;
    return execute(text, values);
  });
  try {
    for (const limit of [1, 5, 30]) {
      statements = 0;
      const page = await listing.run(true, () =>
        listIndexJobs(deps, caller, { status: 'finished', limit, offset: 0 }),
      );
      expect(page.jobs).toHaveLength(limit);
      expect(statements).toBe(2);
      for (const listed of page.jobs) {
        expect(listed.failures.length).toBe(Math.min(listed.progress.failed, LISTED_FAILURES_PER_JOB));
      }
    }
  } finally {
    executeSql.mockRestore();
  }
});

it('asks the queue once about each job listed as queued or running, and about no finished one', async () => {
  const deps = testApp.runtime.deps;
  const running = [await job(2, true), await job(1, true)];
  const getJob = vi.spyOn(deps.jobs, 'getJob');
  try {
    const page = await listIndexJobs(deps, caller, { limit: 10, offset: 0 });
    expect(page.jobs.slice(0, 2).map((listed) => listed.result_id)).toEqual([...running].reverse());
    expect(getJob.mock.calls.map(([, id]) => id).sort()).toEqual([...running].sort());
  } finally {
    getJob.mockRestore();
  }
});

import { randomBytes } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { Type } from 'typebox';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HANG_BOUND_MS } from '../../test/helpers/hang-bound.js';
import { createTestDatabase, type TestDatabase, testDatabaseKind } from '../../test/helpers/test-database.js';
import { openDatabase } from '../db/client.js';
import {
  DEFAULT_HEARTBEAT,
  defineJob,
  type JobContext,
  type JobSnapshot,
  type JobState,
} from './job-queue.js';
import {
  crashRecoveryBoundSeconds,
  DEFAULT_MAINTENANCE_INTERVAL_SECONDS,
  DEFAULT_POLLING_INTERVAL_SECONDS,
  type JobDatabase,
  PgBossJobQueue,
} from './pg-boss-queue.js';
import { JobError } from './retry-policy.js';

const Payload = Type.Object({ value: Type.Integer() });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe(`PgBossJobQueue on ${testDatabaseKind() === 'postgres' ? 'PostgreSQL' : 'PGlite'}`, () => {
  let testDatabase: TestDatabase;
  let database: JobDatabase;
  let query: (text: string, values?: unknown[]) => Promise<{ rows: Record<string, unknown>[] }>;
  const queues: PgBossJobQueue[] = [];

  beforeAll(async () => {
    testDatabase = await createTestDatabase();
    const { location } = testDatabase;
    if (location.kind === 'postgres') {
      const pool = new pg.Pool({ connectionString: location.url, max: 5 });
      // Dropping the database ends its connections; an unheard pool error would fail the run.
      pool.on('error', () => {});
      database = pool;
      query = (text, values) => pool.query(text, values);
    } else {
      const client = await PGlite.create();
      database = client;
      query = (text, values) => client.query(text, values);
    }
  });
  afterEach(async () => {
    await Promise.all(queues.splice(0).map((queue) => queue.stop({ graceful: false })));
  });
  afterAll(async () => {
    if ('exec' in database) await database.close();
    else await database.end();
    await testDatabase.drop();
  });

  /** A started queue with short intervals, stopped after the test. */
  async function startQueue(): Promise<PgBossJobQueue> {
    const queue = new PgBossJobQueue({
      database,
      pollingIntervalSeconds: 0.5,
      maintenanceIntervalSeconds: 1,
    });
    queues.push(queue);
    await queue.start();
    return queue;
  }

  const uniqueName = (label: string) => `${label}-${randomBytes(4).toString('hex')}`;

  async function waitForState(
    queue: PgBossJobQueue,
    name: string,
    id: string,
    states: readonly JobState[],
    timeoutMs = HANG_BOUND_MS,
  ): Promise<JobSnapshot> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const job = await queue.getJob(name, id);
      if (job !== null && states.includes(job.state)) return job;
      if (Date.now() > deadline) throw new Error(`job ${id} still ${job?.state} after ${timeoutMs} ms`);
      await sleep(100);
    }
  }

  it('runs a job, stores its output and refuses an invalid payload when it is sent', async () => {
    const queue = await startQueue();
    const name = uniqueName('double');
    await queue.define(
      defineJob({
        name,
        payloadSchema: Payload,
        retry: { limit: 2, backoff: { type: 'exponential', delaySeconds: 1 } },
        expireInSeconds: 30,
        heartbeat: DEFAULT_HEARTBEAT,
        handler: async ({ value }) => ({ doubled: value * 2 }),
      }),
    );
    await expect(queue.send(name, { value: 'seven' })).rejects.toMatchObject({
      reason: 'invalid_payload',
      retryable: false,
    });
    await queue.work(name);
    const id = await queue.send(name, { value: 21 });
    expect(id).not.toBeNull();
    const job = await waitForState(queue, name, id as string, ['completed', 'failed']);
    expect(job).toMatchObject({ state: 'completed', attempts: 1, output: { doubled: 42 }, failure: null });
    expect(await queue.getJob(name, '00000000-0000-0000-0000-000000000000')).toBeNull();
    expect(await queue.getJob(name, 'not-a-uuid')).toBeNull();
  });

  it('retries retryable failures with backoff until they succeed or run out, and fails permanent ones at once', async () => {
    const queue = await startQueue();
    const flaky = uniqueName('flaky');
    const starts: number[] = [];
    await queue.define(
      defineJob({
        name: flaky,
        payloadSchema: Payload,
        retry: { limit: 3, backoff: { type: 'fixed', delaySeconds: 1 } },
        expireInSeconds: 30,
        heartbeat: false,
        handler: async ({ value }, context) => {
          starts.push(Date.now());
          if (context.attempt < 3) throw Object.assign(new Error('bad gateway'), { status: 503 });
          return { value, attempt: context.attempt };
        },
      }),
    );
    const broken = uniqueName('broken');
    let brokenRuns = 0;
    await queue.define(
      defineJob({
        name: broken,
        payloadSchema: (value) => value as { kind: string },
        retry: { limit: 1, backoff: { type: 'fixed', delaySeconds: 1 } },
        expireInSeconds: 30,
        heartbeat: false,
        handler: async ({ kind }) => {
          brokenRuns += 1;
          if (kind === 'missing') throw JobError.permanent('not_found', 'the document is gone');
          if (kind === 'bug') throw new TypeError('undefined is not a function');
          throw JobError.retryable('network', 'connection reset');
        },
      }),
    );
    await queue.work(flaky);
    await queue.work(broken);
    const flakyId = (await queue.send(flaky, { value: 5 })) as string;
    const missingId = (await queue.send(broken, { kind: 'missing' })) as string;
    const bugId = (await queue.send(broken, { kind: 'bug' })) as string;
    const downId = (await queue.send(broken, { kind: 'down' })) as string;

    const missing = await waitForState(queue, broken, missingId, ['failed']);
    expect(missing).toMatchObject({ attempts: 1, failure: { reason: 'not_found', retryable: false } });
    const bug = await waitForState(queue, broken, bugId, ['failed']);
    expect(bug).toMatchObject({ attempts: 1, failure: { reason: 'internal', retryable: false } });
    // limit 1: the first attempt and one retry, then failed with the last reason.
    const down = await waitForState(queue, broken, downId, ['failed']);
    expect(down).toMatchObject({ attempts: 2, failure: { reason: 'network', retryable: true } });
    expect(brokenRuns).toBe(4);

    const done = await waitForState(queue, flaky, flakyId, ['completed', 'failed']);
    expect(done).toMatchObject({ state: 'completed', attempts: 3, output: { value: 5, attempt: 3 } });
    expect(starts).toHaveLength(3);
    for (let index = 1; index < starts.length; index++) {
      expect((starts[index] as number) - (starts[index - 1] as number)).toBeGreaterThanOrEqual(950);
    }
  });

  it('gives back the attempts a database outage cut short: a job with no retries left still runs again', async () => {
    const queue = await startQueue();
    const name = uniqueName('outage');
    const contexts: { attempt: number; finalAttempt: boolean }[] = [];
    await queue.define(
      defineJob({
        name,
        payloadSchema: Payload,
        retry: { limit: 1, backoff: { type: 'fixed', delaySeconds: 1 } },
        expireInSeconds: 30,
        heartbeat: false,
        handler: async ({ value }, { attempt, finalAttempt }) => {
          contexts.push({ attempt, finalAttempt });
          // node-postgres's words when the server goes away mid-statement (no code, no status).
          if (attempt <= 2) throw new Error('Connection terminated unexpectedly');
          if (attempt === 3) throw JobError.retryable('network', 'connection reset');
          return { value };
        },
      }),
    );
    await queue.work(name);
    const id = (await queue.send(name, { value: 1 })) as string;
    const failed = await waitForState(queue, name, id, ['completed', 'failed']);
    // Two outages given back, then the one real retry spent: limit 1 allowed attempts 3 and 4.
    expect(failed).toMatchObject({ state: 'completed', attempts: 4, output: { value: 1 } });
    expect(contexts).toEqual([
      { attempt: 1, finalAttempt: false },
      { attempt: 2, finalAttempt: false },
      { attempt: 3, finalAttempt: false },
      { attempt: 4, finalAttempt: true },
    ]);
  });

  it("waits at least a source's Retry-After before the next attempt", async () => {
    const queue = await startQueue();
    const name = uniqueName('rate-limited');
    const starts: number[] = [];
    await queue.define(
      defineJob({
        name,
        payloadSchema: Payload,
        retry: { limit: 3, backoff: { type: 'fixed', delaySeconds: 0 } },
        expireInSeconds: 30,
        heartbeat: false,
        handler: async (_payload, context) => {
          starts.push(Date.now());
          if (context.attempt === 1) {
            throw Object.assign(new Error('too many requests'), {
              status: 429,
              headers: { 'Retry-After': '3' },
            });
          }
          return {};
        },
      }),
    );
    await queue.work(name);
    const id = (await queue.send(name, { value: 1 })) as string;
    const retrying = await waitForState(queue, name, id, ['retry']);
    expect(retrying.failure).toMatchObject({ reason: 'rate_limited', retryable: true, retryAfterSeconds: 3 });
    const job = await waitForState(queue, name, id, ['completed']);
    expect(job.attempts).toBe(2);
    expect((starts[1] as number) - (starts[0] as number)).toBeGreaterThanOrEqual(2900);
  });

  it('keeps a long attempt alive by heartbeats, and aborts one that runs past expireInSeconds', async () => {
    const queue = await startQueue();
    const long = uniqueName('long');
    const attempts: number[] = [];
    await queue.define(
      defineJob({
        name: long,
        payloadSchema: Payload,
        retry: { limit: 2, backoff: { type: 'fixed', delaySeconds: 0 } },
        expireInSeconds: 60,
        // Maintenance runs every second: without renewals the 2 s lease would run out mid-attempt.
        heartbeat: { intervalSeconds: 0.5, leaseSeconds: 2 },
        handler: async (_payload, context) => {
          attempts.push(context.attempt);
          await sleep(3500);
          return { finished: true };
        },
      }),
    );
    const stuck = uniqueName('stuck');
    let abortReason: unknown;
    await queue.define(
      defineJob({
        name: stuck,
        payloadSchema: Payload,
        retry: { limit: 1, backoff: { type: 'fixed', delaySeconds: 0 } },
        expireInSeconds: 1,
        heartbeat: DEFAULT_HEARTBEAT,
        handler: async (_payload, context: JobContext) => {
          if (context.attempt > 1) return { attempt: context.attempt };
          await new Promise((resolve) => context.signal.addEventListener('abort', resolve));
          abortReason = context.signal.reason;
          return { ignored: true };
        },
      }),
    );
    await queue.work(long);
    await queue.work(stuck);
    const longId = (await queue.send(long, { value: 1 })) as string;
    const stuckId = (await queue.send(stuck, { value: 1 })) as string;

    const stuckJob = await waitForState(queue, stuck, stuckId, ['completed', 'failed']);
    expect(stuckJob).toMatchObject({ state: 'completed', attempts: 2, output: { attempt: 2 } });
    expect(abortReason).toMatchObject({ reason: 'timeout', retryable: true });
    const longJob = await waitForState(queue, long, longId, ['completed', 'failed']);
    expect(longJob).toMatchObject({ state: 'completed', attempts: 1, output: { finished: true } });
    expect(attempts).toEqual([1]);
  });

  it("hands a dead worker's job to a live one after its lease, and fences the attempt it lost", async () => {
    const queue = await startQueue();
    const name = uniqueName('orphan');
    const seen: { attempt: number; aborted: unknown }[] = [];
    const definition = defineJob({
      name,
      payloadSchema: Payload,
      retry: { limit: 3, backoff: { type: 'fixed', delaySeconds: 0 } },
      expireInSeconds: 60,
      heartbeat: { intervalSeconds: 0.5, leaseSeconds: 2 },
      handler: async ({ value }, context) => {
        const entry = { attempt: context.attempt, aborted: undefined as unknown };
        seen.push(entry);
        if (value === 2 && context.attempt === 1) {
          // Another worker takes this attempt over (as after a long stall): the next renewal
          // finds the row is no longer this attempt.
          await query(`UPDATE pgboss.job SET retry_count = retry_count + 1 WHERE id = $1`, [context.jobId]);
          await new Promise((resolve) => context.signal.addEventListener('abort', resolve));
          entry.aborted = context.signal.reason;
        }
        return { attempt: context.attempt };
      },
    });
    await queue.define(definition);
    // A worker claims the job and dies without a word: the row stays active, its lease unrenewed.
    const orphanId = (await queue.send(name, { value: 1 })) as string;
    await query(`UPDATE pgboss.job SET state = 'active', started_on = now() WHERE id = $1`, [orphanId]);
    const claimedAt = Date.now();
    await queue.work(name);
    const orphan = await waitForState(queue, name, orphanId, ['completed', 'failed']);
    expect(orphan).toMatchObject({ state: 'completed', attempts: 2, output: { attempt: 2 } });
    // Lease 2 s, then maintenance (1 s interval): not before the lease ran out.
    expect(Date.now() - claimedAt).toBeGreaterThanOrEqual(2000);

    const takenId = (await queue.send(name, { value: 2 })) as string;
    await waitForState(queue, name, takenId, ['active']);
    for (let wait = 0; wait < 50 && seen.at(-1)?.aborted === undefined; wait++) await sleep(100);
    expect(seen.at(-1)?.aborted).toMatchObject({ reason: 'lease_expired' });
    // The lost attempt neither completed nor failed the row that is no longer its own.
    const taken = await queue.getJob(name, takenId);
    expect(taken?.state).toBe('active');
  });

  it('shares one queue between several workers: each job runs once', async () => {
    const name = uniqueName('shared');
    const runs: { worker: string; value: number }[] = [];
    const workers = await Promise.all(
      ['a', 'b', 'c'].map(async (worker) => {
        const queue = await startQueue();
        await queue.define(
          defineJob({
            name,
            payloadSchema: Payload,
            concurrency: 2,
            retry: { limit: 0, backoff: { type: 'fixed', delaySeconds: 0 } },
            expireInSeconds: 30,
            heartbeat: DEFAULT_HEARTBEAT,
            handler: async ({ value }) => {
              runs.push({ worker, value });
              await sleep(100);
            },
          }),
        );
        await queue.work(name);
        return queue;
      }),
    );
    const [sender] = workers as [PgBossJobQueue];
    const ids = await Promise.all(Array.from({ length: 30 }, (_, value) => sender.send(name, { value })));
    for (const id of ids) await waitForState(sender, name, id as string, ['completed']);
    expect(runs.map((run) => run.value).sort((left, right) => left - right)).toEqual(
      Array.from({ length: 30 }, (_, value) => value),
    );
    // Not one worker taking everything: the others fetched too.
    expect(new Set(runs.map((run) => run.worker)).size).toBeGreaterThan(1);
  });

  it('deduplicates by singletonKey under the short policy and holds a job until startAfterSeconds', async () => {
    const queue = await startQueue();
    const name = uniqueName('sync');
    const started: number[] = [];
    await queue.define(
      defineJob({
        name,
        payloadSchema: Payload,
        policy: 'short',
        retry: { limit: 0, backoff: { type: 'fixed', delaySeconds: 0 } },
        expireInSeconds: 30,
        heartbeat: DEFAULT_HEARTBEAT,
        handler: async () => {
          started.push(Date.now());
        },
      }),
    );
    const sentAt = Date.now();
    const first = await queue.send(
      name,
      { value: 1 },
      { singletonKey: 'connector-1', startAfterSeconds: 1.5 },
    );
    const second = await queue.send(name, { value: 2 }, { singletonKey: 'connector-1' });
    const other = await queue.send(
      name,
      { value: 3 },
      { singletonKey: 'connector-2', startAfterSeconds: 1.5 },
    );
    expect(first).not.toBeNull();
    expect(second).toBeNull();
    expect(other).not.toBeNull();
    await queue.work(name);
    await waitForState(queue, name, first as string, ['completed']);
    await waitForState(queue, name, other as string, ['completed']);
    expect(started).toHaveLength(2);
    expect(Math.min(...started) - sentAt).toBeGreaterThanOrEqual(1400);
  });

  it('stops gracefully after the running attempt, and hands it back when not graceful', async () => {
    const queue = await startQueue();
    const name = uniqueName('stoppable');
    await queue.define(
      defineJob({
        name,
        payloadSchema: Payload,
        retry: { limit: 2, backoff: { type: 'fixed', delaySeconds: 0 } },
        expireInSeconds: 30,
        heartbeat: DEFAULT_HEARTBEAT,
        handler: async ({ value }, context) => {
          await new Promise((resolve) => {
            const timer = setTimeout(resolve, value);
            context.signal.addEventListener('abort', () => clearTimeout(timer));
          });
          return { slept: value };
        },
      }),
    );
    await queue.work(name);
    const graceful = (await queue.send(name, { value: 800 })) as string;
    await waitForState(queue, name, graceful, ['active']);
    await queue.stop({ graceful: true });
    expect(await queue.getJob(name, graceful)).toMatchObject({ state: 'completed', output: { slept: 800 } });

    const again = await startQueue();
    await again.define(
      defineJob({
        name,
        payloadSchema: Payload,
        retry: { limit: 2, backoff: { type: 'fixed', delaySeconds: 0 } },
        expireInSeconds: 30,
        heartbeat: DEFAULT_HEARTBEAT,
        handler: () => new Promise(() => {}),
      }),
    );
    await again.work(name);
    const abrupt = (await again.send(name, { value: 60_000 })) as string;
    await waitForState(again, name, abrupt, ['active']);
    await again.stop({ graceful: false });
    expect(await again.getJob(name, abrupt)).toMatchObject({
      state: 'retry',
      attempts: 1,
      failure: { reason: 'shutdown', retryable: true },
    });
  });

  it('brings back a dead worker’s job within a minute with the default settings', () => {
    const bound = crashRecoveryBoundSeconds({
      heartbeat: DEFAULT_HEARTBEAT,
      expireInSeconds: 15 * 60,
      retry: { limit: 5, backoff: { type: 'exponential', delaySeconds: 2 } },
      maintenanceIntervalSeconds: DEFAULT_MAINTENANCE_INTERVAL_SECONDS,
      pollingIntervalSeconds: DEFAULT_POLLING_INTERVAL_SECONDS,
    });
    // What is left of the minute is the job's own run time.
    expect(bound).toBeLessThanOrEqual(40);
  });
});

describe.runIf(testDatabaseKind() === 'postgres')('PgBossJobQueue: processes starting at once', () => {
  it('installs pg-boss once when several processes start together on a new database', async () => {
    // Each attempt on a database of its own: the race is on creating the schema.
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const testDatabase = await createTestDatabase();
      const { location } = testDatabase;
      if (location.kind !== 'postgres') throw new Error('needs PostgreSQL');
      // One database handle a process, opened (and migrated) as every API and worker process does.
      const handles = await Promise.all(
        Array.from({ length: 4 }, () => openDatabase({ kind: 'postgres', url: location.url, poolSize: 10 })),
      );
      const queues = handles.map((handle) => new PgBossJobQueue({ database: handle.raw, supervise: false }));
      try {
        const started = await Promise.allSettled(queues.map((queue) => queue.start()));
        expect(
          started.map((result) => (result.status === 'rejected' ? String(result.reason) : 'ok')),
        ).toEqual(['ok', 'ok', 'ok', 'ok']);
      } finally {
        await Promise.all(queues.map((queue) => queue.stop({ graceful: false })));
        await Promise.all(handles.map((handle) => handle.close()));
        await testDatabase.drop();
      }
    }
  });
});

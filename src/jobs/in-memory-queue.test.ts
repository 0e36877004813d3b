import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { InMemoryJobQueue } from './in-memory-queue.js';
import { DEFAULT_HEARTBEAT, defineJob } from './job-queue.js';
import { JobError } from './retry-policy.js';

const fetchPage = (outcomes: (number | 'ok')[]) => {
  const calls: number[] = [];
  const definition = defineJob({
    name: 'fetch-page',
    payloadSchema: Type.Object({ pageId: Type.String() }),
    retry: { limit: 3, backoff: { type: 'exponential', delaySeconds: 2 } },
    expireInSeconds: 30,
    heartbeat: DEFAULT_HEARTBEAT,
    handler: async ({ pageId }, context) => {
      calls.push(context.attempt);
      const outcome = outcomes[context.attempt - 1] ?? 'ok';
      if (outcome === 'ok') return { pageId };
      throw Object.assign(new Error(`HTTP ${outcome}`), {
        status: outcome,
        headers: outcome === 429 ? { 'retry-after': '60' } : {},
      });
    },
  });
  return { definition, calls };
};

describe('InMemoryJobQueue', () => {
  it('runs jobs with the real rules: backoff, Retry-After and permanent failures, on a virtual clock', async () => {
    const queue = new InMemoryJobQueue({ random: () => 0 });
    const { definition, calls } = fetchPage([503, 429, 'ok']);
    await queue.define(definition);
    await queue.work(definition.name);
    const startedAt = queue.now();
    const id = (await queue.send(definition.name, { pageId: 'p1' })) as string;

    await queue.runUntilIdle();
    expect(calls).toEqual([1, 2, 3]);
    expect(await queue.getJob(definition.name, id)).toMatchObject({
      state: 'completed',
      attempts: 3,
      output: { pageId: 'p1' },
    });
    expect(
      queue.attempts(id).map((attempt) => [attempt.failure?.reason ?? null, attempt.retryDelaySeconds]),
    ).toEqual([
      ['upstream_unavailable', 2],
      ['rate_limited', 60],
      [null, null],
    ]);
    // No real waiting: the 62 s of backoff passed on the virtual clock.
    expect(queue.now() - startedAt).toBeGreaterThanOrEqual(62_000);
  });

  it('fails permanent errors at once and refuses invalid payloads', async () => {
    const queue = new InMemoryJobQueue();
    const { definition, calls } = fetchPage([404]);
    await queue.define(definition);
    await queue.work(definition.name);
    await expect(queue.send(definition.name, { pageId: 42 })).rejects.toBeInstanceOf(JobError);
    const id = (await queue.send(definition.name, { pageId: 'gone' })) as string;
    await queue.runUntilIdle();
    expect(calls).toEqual([1]);
    expect(await queue.getJob(definition.name, id)).toMatchObject({
      state: 'failed',
      attempts: 1,
      failure: { reason: 'not_found', retryable: false },
    });
  });

  it('deduplicates queued jobs by singletonKey under the short policy, and runs only worked names', async () => {
    const queue = new InMemoryJobQueue();
    const { definition } = fetchPage([]);
    await queue.define({ ...definition, policy: 'short' });
    const first = await queue.send(definition.name, { pageId: 'a' }, { singletonKey: 'space-1' });
    expect(await queue.send(definition.name, { pageId: 'b' }, { singletonKey: 'space-1' })).toBeNull();
    expect(await queue.runUntilIdle()).toBe(0);
    await queue.work(definition.name);
    expect(await queue.runUntilIdle()).toBe(1);
    expect(queue.jobs(definition.name).map((job) => [job.id, job.state])).toEqual([[first, 'completed']]);
    expect(await queue.send(definition.name, { pageId: 'c' }, { singletonKey: 'space-1' })).not.toBeNull();
  });
});

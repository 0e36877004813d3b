import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HANG_BOUND_MS } from '../../test/helpers/hang-bound.js';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/test-database.js';
import { sqlConnection } from '../db/sql-connection.js';
import { InMemoryJobQueue } from './in-memory-queue.js';
import { DEFAULT_HEARTBEAT, defineJob } from './job-queue.js';
import { type JobDatabase, PgBossJobQueue } from './pg-boss-queue.js';

function definition(seen: number[]) {
  return defineJob({
    name: 'send-many-test',
    payloadSchema: Type.Object({ value: Type.Integer() }),
    retry: { limit: 3, backoff: { type: 'exponential', delaySeconds: 2 } },
    expireInSeconds: 60,
    heartbeat: DEFAULT_HEARTBEAT,
    handler: async ({ value }) => {
      seen.push(value);
      return { value };
    },
  });
}

describe('JobQueue.sendMany', () => {
  let testDatabase: TestDatabase;
  let database: JobDatabase;

  beforeAll(async () => {
    testDatabase = await createTestDatabase();
    const { location } = testDatabase;
    if (location.kind === 'postgres') {
      const pool = new pg.Pool({ connectionString: location.url, max: 3 });
      pool.on('error', () => {});
      database = pool;
    } else {
      database = await PGlite.create();
    }
  });
  afterAll(async () => {
    if ('exec' in database) await database.close();
    else await database.end();
    await testDatabase.drop();
  });

  it('queues every payload in one go, with the definition’s retry settings, inside a transaction', async () => {
    const seen: number[] = [];
    const queue = new PgBossJobQueue({
      database,
      pollingIntervalSeconds: 0.2,
      maintenanceIntervalSeconds: 1,
    });
    await queue.define(definition(seen));
    await queue.start();
    try {
      await expect(queue.sendMany('send-many-test', [{ value: 1 }, { value: 'two' }])).rejects.toMatchObject({
        reason: 'invalid_payload',
      });
      const connection = sqlConnection(database);
      await expect(
        connection.transaction(async (transaction) => {
          await queue.sendMany('send-many-test', [{ value: 9 }], { db: transaction });
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      const ids = await connection.transaction((transaction) =>
        queue.sendMany('send-many-test', [{ value: 1 }, { value: 2 }, { value: 3 }], { db: transaction }),
      );
      expect(new Set(ids).size).toBe(3);
      expect(await queue.sendMany('send-many-test', [])).toEqual([]);
      const job = await queue.getJob('send-many-test', ids[1] ?? '');
      expect(job).toMatchObject({ retryLimit: 3, state: 'created' });

      await queue.work('send-many-test');
      const deadline = Date.now() + HANG_BOUND_MS;
      while (seen.length < 3 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 50));
      // Neither the invalid batch nor the rolled-back one left a job behind.
      expect(seen.sort()).toEqual([1, 2, 3]);
      expect((await queue.getJob('send-many-test', ids[0] ?? ''))?.output).toEqual({ value: 1 });
    } finally {
      await queue.stop({ graceful: false });
    }
  });

  it('does the same in memory', async () => {
    const seen: number[] = [];
    const queue = new InMemoryJobQueue();
    await queue.define(definition(seen));
    await expect(queue.sendMany('send-many-test', [{ value: 1 }, {}])).rejects.toMatchObject({
      reason: 'invalid_payload',
    });
    const ids = await queue.sendMany('send-many-test', [{ value: 4 }, { value: 5 }]);
    expect(ids).toHaveLength(2);
    await queue.work('send-many-test');
    await queue.runUntilIdle();
    expect(seen).toEqual([4, 5]);
  });
});

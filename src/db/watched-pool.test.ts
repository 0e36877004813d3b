import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HANG_BOUND_MS } from '../../test/helpers/hang-bound.js';
import { startTcpProxy, type TcpProxy } from '../../test/helpers/tcp-proxy.js';
import { createTestDatabase, type TestDatabase, testDatabaseKind } from '../../test/helpers/test-database.js';
import { type DatabaseHandle, openDatabase } from './client.js';
import { DatabaseUnavailableError, isDatabaseUnavailable } from './database-availability.js';

async function until(condition: () => boolean, timeoutMs = HANG_BOUND_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

// A real server going away: PostgreSQL behind a proxy that drops and refuses connections.
describe.skipIf(testDatabaseKind() !== 'postgres')('a PostgreSQL pool whose server goes away', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let handle: DatabaseHandle;
  const warnings: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    if (database.location.kind !== 'postgres') throw new Error('needs PostgreSQL');
    const url = new URL(database.location.url);
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    handle = await openDatabase(
      { kind: 'postgres', url: proxy.urlThrough(database.location.url), poolSize: 3 },
      {},
      { logger: { warn: (_details, message) => warnings.push(message) } },
    );
  });
  afterEach(async () => {
    await proxy.restore();
    await handle.availability.whenAvailable();
    warnings.length = 0;
  });
  afterAll(async () => {
    await handle?.close();
    await proxy?.close();
    await database?.drop();
  });

  it('survives losing the connection of an open transaction (it used to end the process)', async () => {
    // Checked out by the ORM for a transaction, idle between statements when the server goes.
    const transaction = handle.db.transaction(async (tx) => {
      await tx.execute(sql`SELECT 1`);
      await proxy.cut();
      await new Promise((resolve) => setTimeout(resolve, 50));
      await tx.execute(sql`SELECT 2`);
    });
    const failure = await transaction.then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isDatabaseUnavailable(failure)).toBe(true);
    // Raw transactions (the job queue's) too.
    const raw = await handle.sql
      .transaction((tx) => tx.executeSql('SELECT 1'))
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(isDatabaseUnavailable(raw)).toBe(true);
  });

  it('answers within seconds when the server goes silent, connections left open (a failover)', async () => {
    const started = performance.now();
    const failure = await handle.db
      .transaction(async (tx) => {
        await tx.execute(sql`SELECT 1`);
        proxy.silence();
        // Without the pool's stall probe this waits on TCP for minutes.
        await tx.execute(sql`SELECT 2`);
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(isDatabaseUnavailable(failure)).toBe(true);
    expect(performance.now() - started).toBeLessThan(12_000);
    expect(handle.availability.available).toBe(false);
    await expect(handle.db.execute(sql`SELECT 3`)).rejects.toBeInstanceOf(Error);
    expect(warnings).toEqual(['database connection lost; answering 503 until it is back']);

    await proxy.restore();
    await handle.availability.whenAvailable();
    const { rows } = await handle.sql.executeSql('SELECT 41 + 1 AS answer');
    expect(rows).toEqual([{ answer: 42 }]);
  });

  it('fails queries at once while the server is away, logs the outage once, and recovers by itself', async () => {
    await handle.ping();
    await proxy.cut();
    await handle.ping().catch(() => {});
    await until(() => !handle.availability.available);

    const started = performance.now();
    const failures = await Promise.all(
      Array.from({ length: 20 }, () => handle.db.execute(sql`SELECT 1`).catch((error: unknown) => error)),
    );
    // Not each waiting for a connection until its 10 s time-out.
    expect(performance.now() - started).toBeLessThan(2_000);
    for (const failure of failures) expect(isDatabaseUnavailable(failure)).toBe(true);
    await expect(handle.ping()).rejects.toBeInstanceOf(DatabaseUnavailableError);
    expect(warnings).toEqual(['database connection lost; answering 503 until it is back']);

    await proxy.restore();
    const back = performance.now();
    await handle.availability.whenAvailable();
    expect(performance.now() - back).toBeLessThan(3000);
    await handle.ping();
    const { rows } = await handle.sql.executeSql('SELECT 41 + 1 AS answer');
    expect(rows).toEqual([{ answer: 42 }]);
    expect(warnings).toEqual([
      'database connection lost; answering 503 until it is back',
      'database connection regained',
    ]);
  });
});

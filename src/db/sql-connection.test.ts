import { describe, expect, it } from 'vitest';
import { databaseForTheseTests, testDatabaseKind } from '../../test/helpers/test-database.js';
import { ForegroundFirst } from './sql-connection.js';

const testDatabase = databaseForTheseTests();

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

describe('ForegroundFirst', () => {
  it("lets background work start at once when no request's query runs", async () => {
    const order = new ForegroundFirst();
    let started = false;
    void order.turn().then(() => {
      started = true;
    });
    // Within this turn of the event loop: not after MAX_FOREGROUND_WAIT_MS's timer.
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toBe(true);
  });

  it("starts background work only after the requests' queries running are done", async () => {
    const order = new ForegroundFirst();
    const query = deferred();
    const events: string[] = [];
    const running = order.foreground(async () => {
      await query.promise;
      events.push('query done');
    });
    const background = order.turn().then(() => events.push('background starts'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(events).toEqual([]);
    query.resolve();
    await Promise.all([running, background]);
    expect(events).toEqual(['query done', 'background starts']);
  });

  it('waits for a query that follows another within the same turn, as a request chains its queries', async () => {
    const order = new ForegroundFirst();
    const events: string[] = [];
    const first = deferred();
    const second = deferred();
    const request = (async () => {
      await order.foreground(() => first.promise);
      await order.foreground(() => second.promise);
      events.push('request done');
    })();
    const background = order.turn().then(() => events.push('background starts'));
    first.resolve();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(events).toEqual([]);
    second.resolve();
    await Promise.all([request, background]);
    expect(events).toEqual(['request done', 'background starts']);
  });

  it('never holds background work back for more than a moment, however busy requests keep it', async () => {
    const order = new ForegroundFirst();
    const endless = deferred();
    const running = order.foreground(() => endless.promise);
    const began = performance.now();
    await order.turn();
    const waited = performance.now() - began;
    expect(waited).toBeGreaterThanOrEqual(90);
    expect(waited).toBeLessThan(1_000);
    endless.resolve();
    await running;
  });
});

describe('a prepared statement', () => {
  const text = 'SELECT $1::int + 1 AS next';

  it('answers each run with its own values, in and out of transactions', async () => {
    const sql = testDatabase().sql;
    for (const value of [1, 41, -3]) {
      const { rows } = await sql.executeSql<{ next: number }>(text, [value], { prepared: true });
      expect(rows).toEqual([{ next: value + 1 }]);
    }
    const inTransaction = await sql.transaction(async (transaction) => {
      const first = await transaction.executeSql<{ next: number }>(text, [7], { prepared: true });
      const again = await transaction.executeSql<{ next: number }>(text, [8], { prepared: true });
      // PGlite ignores the option: only PostgreSQL's session lists the statement.
      const { rows } = await transaction.executeSql<{ statements: number }>(
        'SELECT count(*)::int AS statements FROM pg_prepared_statements WHERE statement = $1',
        [text],
      );
      return { first: first.rows, again: again.rows, statements: rows[0]?.statements };
    });
    expect(inTransaction.first).toEqual([{ next: 8 }]);
    expect(inTransaction.again).toEqual([{ next: 9 }]);
    expect(inTransaction.statements).toBe(testDatabaseKind() === 'postgres' ? 1 : 0);
  });
});

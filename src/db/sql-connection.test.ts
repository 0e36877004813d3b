import type pg from 'pg';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { databaseForTheseTests, testDatabaseKind } from '../../test/helpers/test-database.js';
import { ForegroundFirst, runAsBackgroundWork, runAsSearch, sqlConnection } from './sql-connection.js';

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
    void order.background(async () => {
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
    const background = order.background(async () => events.push('background starts'));
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
    const background = order.background(async () => events.push('background starts'));
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
    const waited = await order.background(async () => performance.now() - began);
    expect(waited).toBeGreaterThanOrEqual(90);
    expect(waited).toBeLessThan(1_000);
    endless.resolve();
    await running;
  });
  describe('while searches come', () => {
    /** An order on a clock the test moves, and a search's query that has just ended. */
    async function inUse(): Promise<{ order: ForegroundFirst; clock: { now: number } }> {
      const clock = { now: 0 };
      const order = new ForegroundFirst(() => clock.now);
      await order.foreground(async () => {}, true);
      return { order, clock };
    }

    /** Two background statements started together: how many ran at once. */
    async function mostAtOnce(order: ForegroundFirst): Promise<number> {
      const gates = [deferred(), deferred()];
      let running = 0;
      let most = 0;
      const statements = gates.map((gate) =>
        order.background(async () => {
          running += 1;
          most = Math.max(most, running);
          await gate.promise;
          running -= 1;
        }),
      );
      await new Promise((resolve) => setImmediate(resolve));
      for (const gate of gates) gate.resolve();
      await Promise.all(statements);
      return most;
    }

    it('runs background work one statement at a time, each after the one before it', async () => {
      const { order } = await inUse();
      const first = deferred();
      const events: string[] = [];
      const statements = [
        order.background(async () => {
          events.push('first starts');
          await first.promise;
          events.push('first done');
        }),
        order.background(async () => {
          events.push('second starts');
        }),
      ];
      await new Promise((resolve) => setImmediate(resolve));
      expect(events).toEqual(['first starts']);
      first.resolve();
      await Promise.all(statements);
      expect(events).toEqual(['first starts', 'first done', 'second starts']);
    });

    it('lets background statements run side by side once nobody has searched for a while', async () => {
      const { order, clock } = await inUse();
      clock.now = 1_000;
      expect(await mostAtOnce(order)).toBe(2);
    });

    it("does not hold indexing to one statement for other requests' queries, as a client polling its job", async () => {
      const order = new ForegroundFirst(() => 0);
      await order.foreground(async () => {});
      expect(await mostAtOnce(order)).toBe(2);
    });

    it("does not queue a background statement's own statements behind the work waiting for it", async () => {
      const { order } = await inUse();
      const events: string[] = [];
      const nestedMayRun = deferred();
      const outer = order.background(async () => {
        await nestedMayRun.promise;
        await order.background(async () => {
          events.push('nested runs');
        });
      });
      const waiting = order.background(async () => {
        events.push('next starts');
      });
      nestedMayRun.resolve();
      await Promise.all([outer, waiting]);
      expect(events).toEqual(['nested runs', 'next starts']);
    });
  });
});

describe('a PostgreSQL pool while searches come', () => {
  /** A pool whose statements each end when the test says: the texts it was sent, in order. */
  function heldPool(): { pool: pg.Pool; sent: string[]; finish: (text: string) => void } {
    const sent: string[] = [];
    const ends = new Map<string, () => void>();
    const pool = {
      query: ({ text }: { text: string }) =>
        new Promise((resolve) => {
          sent.push(text);
          ends.set(text, () => resolve({ rows: [] }));
        }),
    } as unknown as pg.Pool;
    return { pool, sent, finish: (text) => ends.get(text)?.() };
  }

  it("runs indexing's statements one at a time after a search's, and side by side after other requests'", async () => {
    // The clock and the longest wait held still, so that only the order of events decides.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const turns = async () => {
      for (let turn = 0; turn < 3; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    };
    for (const searched of [true, false]) {
      const { pool, sent, finish } = heldPool();
      const sql = sqlConnection(pool);
      const request = () => sql.executeSql('SELECT request');
      const asked = searched ? runAsSearch(request) : request();
      finish('SELECT request');
      await asked;
      const indexing = runAsBackgroundWork(() =>
        Promise.all([sql.executeSql('INSERT first'), sql.executeSql('INSERT second')]),
      );
      await turns();
      expect(sent).toEqual(
        searched ? ['SELECT request', 'INSERT first'] : ['SELECT request', 'INSERT first', 'INSERT second'],
      );
      finish('INSERT first');
      await turns();
      expect(sent).toContain('INSERT second');
      finish('INSERT second');
      await indexing;
    }
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

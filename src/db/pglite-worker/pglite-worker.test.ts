import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { types } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgliteSnapshot } from '../../../test/helpers/pglite-snapshot.js';
import { openDatabase } from '../client.js';
import { isDatabaseUnavailable } from '../database-availability.js';
import { violatedUniqueIndex } from '../errors.js';
import { DatabaseThreadExitedError, ThreadedPGlite } from './pglite-worker.js';
import { WriteCountingDatabase } from './write-counting-database.js';

/** A database in memory, from the migrated snapshot when the run has one (no initdb, so quicker). */
function openInMemory(options: { testRequests?: boolean } = {}): Promise<ThreadedPGlite> {
  const snapshot = pgliteSnapshot();
  return ThreadedPGlite.open({
    dataDir: undefined,
    ...(snapshot === undefined ? {} : { loadDataDir: snapshot }),
    ...options,
  });
}

interface Watched<T> {
  readonly settled: boolean;
  readonly promise: Promise<T>;
}

/** Settled or not, readable at any time: what the tests order events by, not a clock. */
function watched<T>(promise: Promise<T>): Watched<T> {
  const state = { settled: false, promise };
  promise.then(
    () => {
      state.settled = true;
    },
    () => {
      state.settled = true;
    },
  );
  return state;
}

describe('ThreadedPGlite', () => {
  let database: ThreadedPGlite;

  beforeAll(async () => {
    database = await openInMemory();
    await database.exec(`
      CREATE TABLE thread_items (id integer PRIMARY KEY, name text NOT NULL UNIQUE, payload jsonb, data bytea,
        big bigint, at timestamptz);
    `);
  });

  afterAll(async () => {
    await database.close();
  });

  it('runs statements with parameters, their values crossing as PGlite makes them', async () => {
    const at = new Date('2024-05-06T07:08:09.123Z');
    await database.query(
      'INSERT INTO thread_items (id, name, payload, data, big, at) VALUES ($1, $2, $3, $4, $5, $6)',
      [1, 'one', JSON.stringify({ tags: ['a', 'b'] }), new Uint8Array([0, 1, 255]), 9007199254740993n, at],
    );
    const { rows, fields } = await database.query<Record<string, unknown>>(
      'SELECT id, name, payload, data, big, at FROM thread_items WHERE id = $1',
      [1],
    );
    expect(rows).toEqual([
      {
        id: 1,
        name: 'one',
        payload: { tags: ['a', 'b'] },
        data: new Uint8Array([0, 1, 255]),
        big: 9007199254740993n,
        at,
      },
    ]);
    expect(fields.map((field) => field.name)).toEqual(['id', 'name', 'payload', 'data', 'big', 'at']);
    const results = await database.exec('SELECT 1 AS a; SELECT 2 AS b');
    expect(results.map((result) => result.rows)).toEqual([[{ a: 1 }], [{ b: 2 }]]);
  });

  it("applies the caller's parsers on the caller's side, to the types they name", async () => {
    const { rows } = await database.query<unknown[]>(
      "SELECT '2024-01-02 03:04:05+00'::timestamptz AS at, 7::int4 AS n, NULL::int4 AS nothing, 'x' AS s",
      [],
      {
        rowMode: 'array',
        parsers: { [types.TIMESTAMPTZ]: (value) => value, [types.INT4]: (value) => `int:${value}` },
      },
    );
    expect(rows).toEqual([['2024-01-02 03:04:05+00', 'int:7', null, 'x']]);
  });

  it("serves drizzle's PGlite driver (its raw timestamps, its transactions)", async () => {
    const db = drizzle(database as never);
    const result = await db.execute<{ at: string }>(sql`SELECT '2024-01-02 03:04:05+00'::timestamptz AS at`);
    expect(result.rows).toEqual([{ at: '2024-01-02 03:04:05+00' }]);
    await db.transaction(async (transaction) => {
      await transaction.execute(sql`INSERT INTO thread_items (id, name) VALUES (50, 'drizzle')`);
    });
    expect((await database.query('SELECT name FROM thread_items WHERE id = 50')).rows).toEqual([
      { name: 'drizzle' },
    ]);
  });

  it("fails with PostgreSQL's fields on the error: a unique violation names its constraint", async () => {
    await database.query("INSERT INTO thread_items (id, name) VALUES (2, 'two')");
    const failure = await database
      .query("INSERT INTO thread_items (id, name) VALUES (3, 'two')")
      .catch((error) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(failure).toMatchObject({
      code: '23505',
      constraint: 'thread_items_name_key',
      detail: 'Key (name)=(two) already exists.',
      table: 'thread_items',
      message: 'duplicate key value violates unique constraint "thread_items_name_key"',
    });
    expect(violatedUniqueIndex(failure)).toBe('thread_items_name_key');
    // The stack shows where the statement was asked for, not the thread's internals.
    expect((failure as Error).stack).toContain('pglite-worker.test.ts');
    const syntax = await database.query('SELEC 1').catch((error) => error);
    expect(syntax).toMatchObject({ code: '42601' });
  });

  it('commits an interactive transaction: its statements run in it, one after another', async () => {
    const answer = await database.transaction(async (transaction) => {
      await transaction.query("INSERT INTO thread_items (id, name) VALUES (10, 'ten')");
      const { rows } = await transaction.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM thread_items WHERE id = 10',
      );
      await transaction.exec("UPDATE thread_items SET name = 'TEN' WHERE id = 10");
      return rows[0]?.n;
    });
    expect(answer).toBe(1);
    expect((await database.query('SELECT name FROM thread_items WHERE id = 10')).rows).toEqual([
      { name: 'TEN' },
    ]);
  });

  it("rolls a transaction back when its work fails, and answers the work's error", async () => {
    const failure = new Error('the work failed');
    const outcome = database.transaction(async (transaction) => {
      await transaction.query("INSERT INTO thread_items (id, name) VALUES (11, 'eleven')");
      throw failure;
    });
    await expect(outcome).rejects.toBe(failure);
    expect((await database.query('SELECT * FROM thread_items WHERE id = 11')).rows).toEqual([]);
  });

  it('rolls back on `rollback()`, after which the transaction takes no statement', async () => {
    await database.transaction(async (transaction) => {
      await transaction.query("INSERT INTO thread_items (id, name) VALUES (12, 'twelve')");
      await transaction.rollback();
      expect(transaction.closed).toBe(true);
      await expect(transaction.query('SELECT 1')).rejects.toThrow('Transaction is closed');
    });
    expect((await database.query('SELECT * FROM thread_items WHERE id = 12')).rows).toEqual([]);
  });

  it('keeps other statements waiting while a transaction is open, as PGlite does', async () => {
    let outside: Watched<{ rows: unknown[] }> | undefined;
    await database.transaction(async (transaction) => {
      await transaction.query("INSERT INTO thread_items (id, name) VALUES (13, 'thirteen')");
      outside = watched(
        database.query<{ n: number }>('SELECT count(*)::int AS n FROM thread_items WHERE id = 13'),
      );
      // Asked for after `outside`: had `outside` not waited for the transaction, it would be answered by now.
      await transaction.query('SELECT 1');
      await transaction.query('SELECT 2');
      expect(outside.settled).toBe(false);
    });
    // It ran once the transaction committed, and sees its row.
    expect((await outside?.promise)?.rows).toEqual([{ n: 1 }]);
  });

  it('dumps its data folder, from which another database starts with the same rows', async () => {
    await database.query("INSERT INTO thread_items (id, name) VALUES (20, 'kept')");
    const archive = await database.dumpDataDir('none');
    const copy = await ThreadedPGlite.open({ dataDir: undefined, loadDataDir: archive });
    try {
      expect((await copy.query('SELECT name FROM thread_items WHERE id = 20')).rows).toEqual([
        { name: 'kept' },
      ]);
    } finally {
      await copy.close();
    }
  });
});

describe('ThreadedPGlite in a data folder', () => {
  let folder: string;

  beforeAll(() => {
    folder = mkdtempSync(path.join(tmpdir(), 'threaded-pglite-'));
  });

  afterAll(() => {
    rmSync(folder, { recursive: true, force: true });
  });

  it('keeps what was written across a close and a new open', async () => {
    const first = await ThreadedPGlite.open({ dataDir: folder });
    await first.exec("CREATE TABLE kept (name text); INSERT INTO kept VALUES ('across')");
    await first.close();
    await expect(first.query('SELECT 1')).rejects.toThrow('The embedded database is closed');
    const second = await ThreadedPGlite.open({ dataDir: folder });
    try {
      expect((await second.query('SELECT name FROM kept')).rows).toEqual([{ name: 'across' }]);
    } finally {
      await second.close();
    }
  });
});

describe('ThreadedPGlite when its thread dies', () => {
  it('rejects every pending request with a clear error, and every later one at once, as an outage', async () => {
    const database = await openInMemory({ testRequests: true });
    let waiting: Watched<unknown> | undefined;
    const transaction = database.transaction(async (open) => {
      await open.query('SELECT 1');
      // Waits in the thread for the transaction, which never ends: the thread dies first.
      waiting = watched(database.query('SELECT 2'));
      await database.crashForTest();
      await open.query('SELECT 3');
    });
    await expect(transaction).rejects.toBeInstanceOf(DatabaseThreadExitedError);
    await expect(waiting?.promise).rejects.toThrow(
      /The embedded database's thread stopped \(exit code 1\): the database thread crashed \(test\)/,
    );
    const later = await database.query('SELECT 4').catch((error: unknown) => error);
    expect(later).toBeInstanceOf(DatabaseThreadExitedError);
    // A 503 with Retry-After for requests, a retry for jobs, /readyz failing: not a 500.
    expect(isDatabaseUnavailable(later)).toBe(true);
    expect(database.ready).toBe(false);
    await database.close();
  });
});

describe('the service on the embedded database', () => {
  it('opens it in its own thread (PGLITE_THREAD)', async () => {
    const snapshot = pgliteSnapshot();
    const handle = await openDatabase({
      kind: 'embedded',
      dataDir: undefined,
      thread: true,
      ...(snapshot === undefined ? {} : { snapshot }),
    });
    try {
      expect(handle.raw).toBeInstanceOf(WriteCountingDatabase);
      expect((handle.raw as WriteCountingDatabase).counted).toBeInstanceOf(ThreadedPGlite);
      await handle.ping();
      expect(handle.sql.runsOnMainThread).toBe(true);
    } finally {
      await handle.close();
    }
  });
});

import type { Results } from '@electric-sql/pglite';
import { describe, expect, it } from 'vitest';
import type { EmbeddedDatabase, EmbeddedTransaction } from './pglite-worker.js';
import { WriteCountingDatabase } from './write-counting-database.js';

const NO_ROWS: Results = { rows: [], fields: [] };

/** A database whose statements wait until the test lets them end. */
function heldDatabase() {
  const release: (() => void)[] = [];
  const held = <T>(value: T) => new Promise<T>((resolve) => release.push(() => resolve(value)));
  const transaction: EmbeddedTransaction = {
    query: async () => NO_ROWS as never,
    exec: async () => [NO_ROWS],
    rollback: async () => {},
    closed: false,
  };
  const database: EmbeddedDatabase = {
    waitReady: Promise.resolve(),
    ready: true,
    closed: false,
    query: () => held(NO_ROWS as never),
    exec: () => held([NO_ROWS]),
    transaction: async (callback) => {
      const result = await callback(transaction);
      return held(result);
    },
    dumpDataDir: async () => new Blob([]),
    close: async () => {},
  };
  return { database, endNext: () => release.shift()?.() };
}

describe('the count of writes ended on the embedded database', () => {
  it('counts a statement once it has ended, and never one declared read-only', async () => {
    const { database, endNext } = heldDatabase();
    const counting = new WriteCountingDatabase(database);
    const write = counting.query('UPDATE documents SET title = $1', ['x']);
    // Sent but not ended: a statement sent now may still miss it, so the count has not moved.
    expect(counting.writesEnded).toBe(0);
    endNext();
    await write;
    expect(counting.writesEnded).toBe(1);
    const read = counting.readOnlyQuery('SELECT 1');
    endNext();
    await read;
    expect(counting.writesEnded).toBe(1);
    const script = counting.exec('BEGIN; DELETE FROM jobs; COMMIT');
    endNext();
    await script;
    expect(counting.writesEnded).toBe(2);
  });

  it('counts a transaction once, when it has ended, and a statement that failed', async () => {
    const failing: EmbeddedDatabase = {
      ...heldDatabase().database,
      query: async () => {
        throw new Error('duplicate key value violates unique constraint');
      },
    };
    const counting = new WriteCountingDatabase(failing);
    await expect(counting.query('INSERT INTO teams (id) VALUES (1)')).rejects.toThrow(/duplicate key/);
    expect(counting.writesEnded).toBe(1);

    const { database, endNext } = heldDatabase();
    const counted = new WriteCountingDatabase(database);
    let inside = -1;
    const transaction = counted.transaction(async (open) => {
      await open.query('INSERT INTO teams (name) VALUES ($1)', ['a']);
      await open.query('INSERT INTO teams (name) VALUES ($1)', ['b']);
      inside = counted.writesEnded;
      return 'done';
    });
    await expect.poll(() => inside).toBe(0);
    expect(counted.writesEnded).toBe(0);
    endNext();
    expect(await transaction).toBe('done');
    expect(counted.writesEnded).toBe(1);
  });
});

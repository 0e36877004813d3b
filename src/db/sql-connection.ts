import type { PGliteInterface, Transaction } from '@electric-sql/pglite';
import type pg from 'pg';

/** The driver-level database: a PGlite instance (embedded) or a PostgreSQL pool. */
export type RawDatabase = PGliteInterface | pg.Pool;

/** Runs one SQL statement with positional parameters; pg-boss's `Db` contract. */
export interface SqlExecutor {
  // pg-boss's `Db` contract (types.d.ts): rows are untyped.
  // biome-ignore lint/suspicious/noExplicitAny: pg-boss reads arbitrary columns from these rows
  executeSql(text: string, values?: unknown[]): Promise<{ rows: any[] }>;
}

/** A connection that can also run work in one transaction. */
export interface SqlConnection extends SqlExecutor {
  transaction<T>(work: (transaction: SqlExecutor) => Promise<T>): Promise<T>;
}

/**
 * PGlite: statements with parameters go through `query` (extended protocol, one statement);
 * pg-boss's parameterless scripts (schema creation, `BEGIN; …; COMMIT` maintenance) through
 * `exec`, which runs several statements and answers the last one's rows.
 */
function pgliteExecutor(client: PGliteInterface | Transaction): SqlExecutor {
  return {
    executeSql: async (text, values) => {
      const result =
        values !== undefined && values.length > 0
          ? await client.query(text, values)
          : ((await client.exec(text)).at(-1) ?? { rows: [] });
      await yieldToEventLoop();
      return result;
    },
  };
}

/**
 * PGlite runs in the main thread and answers through promises alone, so a chain of statements
 * (a job storing file after file) would otherwise never let the event loop reach waiting HTTP
 * requests: /healthz waited seconds behind the indexing of an upload (bench/indexing).
 */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Raw SQL on either database, for pg-boss and for writes that must share its transaction. */
export function sqlConnection(database: RawDatabase): SqlConnection {
  if ('exec' in database) {
    return {
      ...pgliteExecutor(database),
      // PGlite runs a transaction exclusively: nothing else reaches the one connection meanwhile.
      transaction: (work) => database.transaction((transaction) => work(pgliteExecutor(transaction))),
    };
  }
  return {
    executeSql: (text, values) => database.query(text, values),
    transaction: async (work) => {
      const client = await database.connect();
      try {
        await client.query('BEGIN');
        const result = await work({ executeSql: (text, values) => client.query(text, values) });
        await client.query('COMMIT');
        client.release();
        return result;
      } catch (error) {
        // A client whose rollback fails is broken: destroy it rather than return it to the pool.
        await client.query('ROLLBACK').then(
          () => client.release(),
          (rollbackError: unknown) => client.release(rollbackError as Error),
        );
        throw error;
      }
    },
  };
}

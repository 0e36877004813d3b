import type { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzleNodePostgres } from 'drizzle-orm/node-postgres';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import type { Database } from './client.js';
import * as schema from './schema.js';
import type {
  DriverSqlConnection,
  SqlConnection,
  SqlExecutor,
  StatementOptions,
  TransactionClient,
} from './sql-connection.js';

/**
 * What every repository function accepts, whichever it is written against: drizzle's query
 * builder (`Database`) and raw SQL (`SqlExecutor`, `SqlConnection`) over the same database, or
 * over the same open transaction, so one transaction can mix both kinds of statement.
 *
 * `transaction` runs its work in one transaction of the raw connection (PGlite's background
 * lane included) and hands it a Connection bound to that transaction: raw-SQL callers use it as
 * their SqlExecutor, query-builder callers as drizzle's transaction. Inside a transaction,
 * `transaction` joins it (no savepoint): a repository that opens one runs in its caller's.
 */
export type Connection = Database & SqlConnection;

/** The Connection over an open database: its pool (or PGlite) for both kinds of statement. */
export function connectionOf(database: {
  readonly db: Database;
  readonly sql: DriverSqlConnection;
}): Connection {
  const { sql } = database;
  return joined(
    () => database.db,
    sql,
    sql.runsOnMainThread,
    (work) =>
      sql.transactionOnClient((executor, client) => {
        const inTransaction: Connection = joined(
          () => queryBuilderOver(client),
          executor,
          sql.runsOnMainThread,
          (nested) => nested(inTransaction, client),
        );
        return work(inTransaction, client);
      }),
    sql.localWrites,
  );
}

type TransactionRunner = <T>(
  work: (transaction: Connection, client: TransactionClient) => Promise<T>,
) => Promise<T>;

/**
 * Raw SQL with drizzle's database beside it: `executeSql`, `runsOnMainThread` and `transaction`
 * are the raw connection's, every other member drizzle's. drizzle is made on first use: most
 * transactions run raw SQL only, and a drizzle instance costs ~0.2 ms to build.
 */
function joined(
  queryBuilder: () => Database,
  executor: SqlExecutor,
  runsOnMainThread: boolean,
  transaction: TransactionRunner,
  localWrites?: () => number,
): Connection {
  const raw: Omit<SqlConnection, 'transaction'> & { transaction: TransactionRunner } = {
    executeSql: <Row>(text: string, values?: unknown[], options?: StatementOptions) =>
      executor.executeSql<Row>(text, values, options),
    runsOnMainThread,
    transaction,
    // Outside a transaction only: inside one, nothing it wrote is seen by others yet.
    ...(localWrites === undefined ? {} : { localWrites }),
  };
  let db: Database | undefined;
  const connection = new Proxy(raw, {
    get: (target, property) => {
      if (property in target) return Reflect.get(target, property);
      db ??= queryBuilder();
      const value: unknown = Reflect.get(db, property);
      return typeof value === 'function' ? value.bind(db) : value;
    },
  });
  // The one place the two `transaction` signatures are taken as one (see Connection).
  return connection as unknown as Connection;
}

/** drizzle over a driver's open transaction, so its statements run in that transaction. */
function queryBuilderOver(client: TransactionClient): Database {
  return 'exec' in client
    ? (drizzlePglite(client as unknown as PGlite, { schema }) as unknown as Database)
    : drizzleNodePostgres(client, { schema });
}

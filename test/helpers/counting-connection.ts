import type { SqlConnection, SqlExecutor } from '../../src/db/sql-connection.js';

/** A connection counting what reaches the database: statements, and transactions (each a BEGIN and a COMMIT more). */
export interface CountingConnection {
  readonly connection: SqlConnection;
  readonly statements: number;
  readonly transactions: number;
}

/** `connection`, counting its statements (those of its transactions too) and its transactions. */
export function countingConnection(connection: SqlConnection): CountingConnection {
  const counts = { statements: 0, transactions: 0 };
  const counter = (executor: SqlExecutor): SqlExecutor['executeSql'] =>
    ((text, values, options) => {
      counts.statements += 1;
      return executor.executeSql(text, values, options);
    }) as SqlExecutor['executeSql'];
  const counted: SqlConnection = {
    runsOnMainThread: connection.runsOnMainThread,
    executeSql: counter(connection),
    transaction: (work) => {
      counts.transactions += 1;
      return connection.transaction((transaction) => work({ executeSql: counter(transaction) }));
    },
  };
  return {
    connection: counted,
    get statements() {
      return counts.statements;
    },
    get transactions() {
      return counts.transactions;
    },
  };
}

/** An executor counting the statements sent through it. */
export interface CountingExecutor extends SqlExecutor {
  readonly statements: number;
}

/** `executor`, counting its statements; without a count of writes (`localWrites`), as on PostgreSQL. */
export function countingExecutor(executor: SqlExecutor): CountingExecutor {
  let statements = 0;
  return {
    executeSql: ((text, values, options) => {
      statements += 1;
      return executor.executeSql(text, values, options);
    }) as SqlExecutor['executeSql'],
    get statements() {
      return statements;
    },
  };
}

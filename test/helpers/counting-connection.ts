import type { SqlConnection, SqlExecutor } from '../../src/db/sql-connection.js';

/** `executor`'s executeSql, telling `count` of each statement before sending it. */
function countedStatements(executor: SqlExecutor, count: () => void): SqlExecutor['executeSql'] {
  return ((text, values, options) => {
    count();
    return executor.executeSql(text, values, options);
  }) as SqlExecutor['executeSql'];
}

/** A connection counting what reaches the database: statements, and transactions (each a BEGIN and a COMMIT more). */
export interface CountingConnection {
  readonly connection: SqlConnection;
  readonly statements: number;
  readonly transactions: number;
}

/** `connection`, counting its statements (those of its transactions too) and its transactions. */
export function countingConnection(connection: SqlConnection): CountingConnection {
  const counts = { statements: 0, transactions: 0 };
  const counter = (executor: SqlExecutor) =>
    countedStatements(executor, () => {
      counts.statements += 1;
    });
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
    executeSql: countedStatements(executor, () => {
      statements += 1;
    }),
    get statements() {
      return statements;
    },
  };
}

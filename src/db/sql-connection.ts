import { AsyncLocalStorage } from 'node:async_hooks';
import type pg from 'pg';
import { PglitePreparedStatements, preparedStatementName } from './pglite-prepared-statements.js';
import type { EmbeddedDatabase, EmbeddedTransaction } from './pglite-worker/pglite-worker.js';
import { WriteCountingDatabase } from './pglite-worker/write-counting-database.js';

/** The driver-level database: PGlite (embedded; in its own thread, or a test's own) or a PostgreSQL pool. */
export type RawDatabase = EmbeddedDatabase | pg.Pool;

/**
 * Runs one SQL statement with positional parameters; pg-boss's `Db` contract (which reads its own
 * columns). Repositories name the shape of their rows (`executeSql<JobRow>(…)`); unnamed, a row is
 * a record of unknown values, read only through checks.
 */
export interface SqlExecutor {
  executeSql<Row = Record<string, unknown>>(
    text: string,
    values?: unknown[],
    options?: StatementOptions,
  ): Promise<{ rows: Row[] }>;
}

/** How a statement is sent; executors that cannot honour an option ignore it. */
export interface StatementOptions {
  /**
   * The same text runs many times a second (a search's statements): PostgreSQL keeps it parsed,
   * and its plan, per connection, instead of parsing and planning it each time (a named prepared
   * statement). Only for texts from a small fixed set: each distinct text is kept on every
   * connection for its life. On PGlite, prepared once per session and run by `EXECUTE` outside
   * transactions (`PglitePreparedStatements`).
   */
  readonly prepared?: boolean;
  /**
   * The statement writes nothing: where this process counts the writes it sends (`localWrites`),
   * it is not counted. Declared only on statements that read and nothing else.
   */
  readonly readOnly?: boolean;
}

/** The query config that runs `text` as a named prepared statement, or as it is. */
function pgQuery(text: string, values: unknown[] | undefined, options: StatementOptions | undefined) {
  if (options?.prepared !== true) return { text, values };
  const name = preparedStatementName(text);
  return { name, text, values };
}

/**
 * The driver's rows as the statement's author declares them: the one place a row type is taken
 * on trust (the SQL text, beside it in its repository, is what makes it true).
 */
function rowsAs<Row>(result: { rows: unknown[] }): { rows: Row[] } {
  return result as { rows: Row[] };
}

/** The driver's own handle on an open transaction (for a query builder to join it: `db/connection.ts`). */
export type TransactionClient = EmbeddedTransaction | pg.PoolClient;

/** A connection that can also run work in one transaction. */
export interface SqlConnection extends SqlExecutor {
  transaction<T>(work: (transaction: SqlExecutor) => Promise<T>): Promise<T>;
  /**
   * True for PGlite, one connection: while a statement runs, no other statement does, so long
   * writes are cut into short statements. (The service's PGlite runs in a thread of its own, where
   * a statement no longer holds HTTP or /healthz, but still holds every other query, searches
   * included; a test's in-process PGlite still holds the main thread.)
   */
  readonly runsOnMainThread: boolean;
  /**
   * Where this process is the database's only client (PGlite): how many statements and
   * transactions that may have written have ended. The same count before a statement was sent and
   * later means nothing written since was hidden from it. Undefined on PostgreSQL, where other
   * processes write too.
   */
  readonly localWrites?: () => number;
}

/** A driver's SqlConnection, whose transactions also show the driver's handle on them. */
export interface DriverSqlConnection extends SqlConnection {
  /** As `transaction`, with the driver's client too, for drizzle to join the transaction. */
  transactionOnClient<T>(
    work: (transaction: SqlExecutor, client: TransactionClient) => Promise<T>,
  ): Promise<T>;
}

/** Each PGlite session's prepared statements (`StatementOptions.prepared`). */
const pglitePrepared = new WeakMap<EmbeddedDatabase, PglitePreparedStatements>();

/**
 * PGlite: statements with parameters go through `query` (extended protocol, one statement), or,
 * declared `prepared` outside a transaction, are prepared once and run by `EXECUTE`
 * (`PglitePreparedStatements`); pg-boss's parameterless scripts (schema creation,
 * `BEGIN; …; COMMIT` maintenance) through `exec`, which runs several statements and answers the
 * last one's rows.
 */
function pgliteExecutor(client: EmbeddedDatabase | EmbeddedTransaction): SqlExecutor {
  const readOnly = (options: StatementOptions | undefined) =>
    options?.readOnly === true && client instanceof WriteCountingDatabase ? client : undefined;
  const prepared =
    'transaction' in client
      ? onePer(pglitePrepared, client, () => {
          const exec = (script: string) =>
            client instanceof WriteCountingDatabase ? client.readOnlyExec(script) : client.exec(script);
          return new PglitePreparedStatements(exec);
        })
      : undefined;
  const bound = (text: string, values: unknown[], options: StatementOptions | undefined) =>
    readOnly(options)?.readOnlyQuery(text, values) ?? client.query(text, values);
  const run = async (text: string, values: unknown[], options: StatementOptions | undefined) => {
    if (prepared === undefined || options?.prepared !== true) return bound(text, values, options);
    const counting = readOnly(options);
    const executeWith = (script: string) => counting?.readOnlyExec(script) ?? client.exec(script);
    return (await prepared.run(text, values, executeWith)) ?? bound(text, values, options);
  };
  return {
    executeSql: async <Row>(text: string, values?: unknown[], options?: StatementOptions) => {
      const result =
        values !== undefined && values.length > 0
          ? await run(text, values, options)
          : ((await client.exec(text)).at(-1) ?? { rows: [] });
      await yieldToEventLoop();
      return rowsAs<Row>(result);
    },
  };
}

/**
 * PGlite in the main thread (a test's own) answers through promises alone, so a chain of
 * statements (a job storing file after file) would otherwise never let the event loop reach
 * waiting HTTP requests: /healthz waited seconds behind the indexing of an upload (bench/indexing).
 * The service's PGlite answers from its own thread, by messages, which let the loop turn anyway.
 */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

const backgroundWork = new AsyncLocalStorage<true>();

/**
 * Runs `work` as background work (indexing): on PGlite its statements and transactions take the
 * one connection one at a time, each after the event loop has had its turn, so the queries of
 * requests that arrived meanwhile go first instead of queueing behind a job's writes. On
 * PostgreSQL each query has its own connection, but not its own core: a background statement or
 * transaction starts once this process's requests' queries are done (`ForegroundFirst`).
 */
export function runAsBackgroundWork<T>(work: () => Promise<T>): Promise<T> {
  return backgroundWork.run(true, work);
}

const searchWork = new AsyncLocalStorage<true>();

/**
 * Runs `work` as a search (ranking chunks for a search or an answer): while searches come, this
 * process's background work keeps to one statement at a time (`ForegroundFirst`).
 */
export function runAsSearch<T>(work: () => Promise<T>): Promise<T> {
  return searchWork.run(true, work);
}

/**
 * Background statements and transactions of one PGlite, one at a time (`runAsBackgroundWork`).
 * Still useful with PGlite in its own thread: requests' queries wait behind at most one
 * background statement there, instead of behind every statement the jobs have queued.
 */
class BackgroundLane {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(work: () => Promise<T>): Promise<T> {
    const turn = this.tail.then(async () => {
      await yieldToEventLoop();
      return work();
    });
    this.tail = turn.catch(() => {});
    return turn;
  }
}

const backgroundLanes = new WeakMap<EmbeddedDatabase, BackgroundLane>();

/** The value kept for `key` in `map`, made on first use: one lane or order per database. */
function onePer<Key extends object, Value>(map: WeakMap<Key, Value>, key: Key, make: () => Value): Value {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}

/** Longest a background statement waits for requests' queries to finish: indexing never stops. */
const MAX_FOREGROUND_WAIT_MS = 100;

/**
 * How long after a search's query the service counts as being searched, and keeps its background
 * work to one statement at a time: long enough to span the gap between one search and the next.
 */
const SEARCHED_WINDOW_MS = 1_000;

/**
 * Background work holding a statement slot (a transaction's work, say): a statement it sends
 * through the pool rather than its transaction must not wait for a slot of its own.
 */
const holdingSlot = new AsyncLocalStorage<true>();

/**
 * Requests' queries first, on PostgreSQL: background work (`runAsBackgroundWork`) starts a
 * statement or transaction only when none of this process's other queries is running, and none
 * ran in the last turn of the event loop (a request's queries follow one another within a turn),
 * or once it has waited MAX_FOREGROUND_WAIT_MS. A write already running goes on; what waits is
 * the next. On a small server indexing's writes otherwise take every core while searches wait for
 * one: on 2 cores, search p99 while the big file was indexed went from 26 to 20 ms, while SciFact
 * was, from 40 to 34 ms (bench/indexing, one run each).
 * While searches come (one ran in the last SEARCHED_WINDOW_MS), background work runs one statement
 * at a time (here too, one that has waited MAX_FOREGROUND_WAIT_MS starts anyway), so that the next
 * search finds a core that indexing does not hold. On 2 cores, with a search every 250 ms while
 * SciFact was indexed, search p99 went from 46 to 23 ms (p50 from 12 to 7.2 ms), at a price: the
 * corpus took 71 s instead of 39 s. Two statements at a time gave 45 ms and 48 s (bench/indexing
 * --section=reads, one run each). Other requests (a client polling its job) do not slow indexing
 * so; when nobody searches, indexing takes the connections it has work for.
 * A transaction waits before BEGIN, never inside, so nothing is locked while it waits.
 */
export class ForegroundFirst {
  private running = 0;
  private backgroundRunning = 0;
  private lastSearchEndedAt = Number.NEGATIVE_INFINITY;
  private waiting: (() => void)[] = [];

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Runs a request's query; `search` says it is a search's (`runAsSearch`). */
  async foreground<T>(work: () => Promise<T>, search = false): Promise<T> {
    this.running += 1;
    try {
      return await work();
    } finally {
      this.running -= 1;
      if (search) this.lastSearchEndedAt = this.now();
      if (this.running === 0 && this.waiting.length > 0) setImmediate(() => this.release());
    }
  }

  /** Runs `work` as one background statement or transaction, when its turn comes. */
  async background<T>(work: () => Promise<T>): Promise<T> {
    if (holdingSlot.getStore() === true) return work();
    await this.turn();
    try {
      return await holdingSlot.run(true, work);
    } finally {
      this.backgroundRunning -= 1;
      this.release();
    }
  }

  /** Resolves when background work may start its next statement, its slot taken. */
  private async turn(): Promise<void> {
    if (this.waiting.length === 0 && this.mayStart()) {
      this.backgroundRunning += 1;
      return;
    }
    await new Promise<void>((resolve) => {
      const resume = () => {
        clearTimeout(timer);
        this.backgroundRunning += 1;
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiting = this.waiting.filter((waiter) => waiter !== resume);
        this.backgroundRunning += 1;
        resolve();
      }, MAX_FOREGROUND_WAIT_MS);
      timer.unref();
      this.waiting.push(resume);
    });
  }

  private mayStart(): boolean {
    if (this.running > 0) return false;
    return this.backgroundRunning === 0 || this.now() - this.lastSearchEndedAt >= SEARCHED_WINDOW_MS;
  }

  /** Starts waiting background work, in order, while it may start. */
  private release(): void {
    while (this.waiting.length > 0 && this.mayStart()) this.waiting.shift()?.();
  }
}

/** One order per pool: the job queue's connection and the service's share it. */
const foregroundOrders = new WeakMap<object, ForegroundFirst>();

/** Raw SQL on either database, for pg-boss and for writes that must share its transaction. */
export function sqlConnection(database: RawDatabase): DriverSqlConnection {
  if ('exec' in database) {
    const direct = pgliteExecutor(database);
    const lane = onePer(backgroundLanes, database, () => new BackgroundLane());
    const inLane = <T>(work: () => Promise<T>): Promise<T> =>
      backgroundWork.getStore() === true ? lane.run(work) : work();
    // PGlite runs a transaction exclusively: nothing else reaches the one connection meanwhile.
    const transactionOnClient: DriverSqlConnection['transactionOnClient'] = (work) =>
      inLane(() => database.transaction((transaction) => work(pgliteExecutor(transaction), transaction)));
    return {
      runsOnMainThread: true,
      executeSql: (text, values, options) => inLane(() => direct.executeSql(text, values, options)),
      ...(database instanceof WriteCountingDatabase ? { localWrites: () => database.writesEnded } : {}),
      transaction: (work) => transactionOnClient((transaction) => work(transaction)),
      transactionOnClient,
    };
  }
  const transactionOnClient: DriverSqlConnection['transactionOnClient'] = async (work) => {
    const client = await database.connect();
    try {
      await client.query('BEGIN');
      const result = await work(
        {
          executeSql: async <Row>(text: string, values?: unknown[], options?: StatementOptions) =>
            rowsAs<Row>(await client.query(pgQuery(text, values, options))),
        },
        client,
      );
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
  };
  const order = onePer(foregroundOrders, database, () => new ForegroundFirst());
  const inOrder = async <T>(work: () => Promise<T>): Promise<T> => {
    if (backgroundWork.getStore() !== true) return order.foreground(work, searchWork.getStore() === true);
    return order.background(work);
  };
  const ordered: DriverSqlConnection['transactionOnClient'] = (work) =>
    inOrder(() => transactionOnClient(work));
  return {
    runsOnMainThread: false,
    executeSql: <Row>(text: string, values?: unknown[], options?: StatementOptions) =>
      inOrder(async () => rowsAs<Row>(await database.query(pgQuery(text, values, options)))),
    transaction: (work) => ordered((transaction) => work(transaction)),
    transactionOnClient: ordered,
  };
}

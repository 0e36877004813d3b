import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import type { PGliteOptions, QueryOptions, Results } from '@electric-sql/pglite';
import { startWorkerThread } from '../../worker-thread.js';
import type {
  SerializedError,
  ThreadOpenOptions,
  ThreadQueryOptions,
  ThreadReply,
  ThreadRequest,
} from './protocol.js';

/**
 * What the service asks of its embedded database (sql-connection.ts, drizzle's pglite driver and
 * migrator, the test snapshots): the part of PGlite's interface that ThreadedPGlite serves, and
 * that PGlite itself satisfies (tests still hand a PGlite of their own to the job queue).
 */
export interface EmbeddedDatabase {
  readonly waitReady: Promise<void>;
  readonly ready: boolean;
  readonly closed: boolean;
  query<T>(query: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>>;
  exec(query: string, options?: QueryOptions): Promise<Results[]>;
  transaction<T>(callback: (transaction: EmbeddedTransaction) => Promise<T>): Promise<T>;
  dumpDataDir(compression?: 'none' | 'gzip' | 'auto'): Promise<Blob>;
  close(): Promise<void>;
}

/** An open transaction of an EmbeddedDatabase (PGlite's `Transaction`, as far as it is used). */
export interface EmbeddedTransaction {
  query<T>(query: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>>;
  exec(query: string, options?: QueryOptions): Promise<Results[]>;
  rollback(): Promise<void>;
  readonly closed: boolean;
}

export interface ThreadedPGliteOptions {
  /** PGlite's folder; undefined keeps the database in memory. */
  readonly dataDir: string | undefined;
  /** A `dumpDataDir` archive an in-memory database starts from. */
  readonly loadDataDir?: Blob;
  readonly startParams?: readonly string[];
  /** Lets tests crash the thread (`crashForTest`). */
  readonly testRequests?: boolean;
}

/** An error PostgreSQL (or PGlite) raised in the database's thread, with its fields: `code`, `constraint`… */
export class EmbeddedDatabaseError extends Error {
  [field: string]: unknown;
}

/** Thrown for every request the database's thread can no longer answer: it stopped. */
export class DatabaseThreadExitedError extends Error {
  override readonly name = 'DatabaseThreadExitedError';
}

/** A request as written: `#request` gives it its id. */
type ThreadRequestBody = ThreadRequest extends infer Request
  ? Request extends ThreadRequest
    ? Omit<Request, 'id'>
    : never
  : never;

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  /** Where the request was made: the stack a failure shows (the thread's own says nothing useful). */
  readonly origin: Error;
}

/**
 * PGlite in a worker thread of its own (pglite-thread.ts), so that its WASM, which runs a
 * statement to its end without yielding, never holds the service's event loop: HTTP, /healthz and
 * streaming answer while a long query runs. Requests cross as messages with an id, in order;
 * results as structured clones (Dates, Uint8Arrays, bigints cross as they are). Transactions are
 * interactive: the thread keeps PGlite's transaction open while statements tagged with its id
 * arrive, and other statements wait in the thread on PGlite's mutex, as they would in-process.
 */
export class ThreadedPGlite implements EmbeddedDatabase {
  readonly waitReady: Promise<void>;
  #ready = false;
  #closed = false;
  /** Why no request can be answered any more (the thread stopped), once that is so. */
  #gone: Error | undefined;
  #crash: Error | undefined;
  readonly #worker: Worker;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;

  private constructor(worker: Worker) {
    this.#worker = worker;
    this.waitReady = new Promise<void>((resolve, reject) => {
      worker.on('message', (message: ThreadReply) => {
        if (message.type === 'ready') {
          this.#ready = true;
          // Idle, the thread keeps no process alive (in-process PGlite did not); opening or busy, it does.
          if (this.#pending.size === 0) worker.unref();
          resolve();
        } else if (message.type === 'open-failed') {
          reject(errorFrom(message.error, new Error()));
        } else {
          this.#settle(message);
        }
      });
      worker.on('error', (error) => {
        this.#crash = error;
      });
      worker.on('messageerror', (error) => {
        // A reply that cannot be read leaves its request unanswerable: the thread is stopped.
        this.#crash = error;
        void worker.terminate();
      });
      worker.on('exit', (code) => {
        const cause = this.#crash;
        this.#gone = this.#closed
          ? new Error('The embedded database is closed')
          : new DatabaseThreadExitedError(
              `The embedded database's thread stopped (exit code ${code})${cause === undefined ? '' : `: ${cause.message}`}`,
              { cause },
            );
        reject(this.#gone);
        for (const pending of this.#pending.values()) pending.reject(this.#gone);
        this.#pending.clear();
      });
    });
    // Awaited by `open`; a database never waited for must not fail the process unheard.
    this.waitReady.catch(() => {});
  }

  /** Starts the thread and opens the database in it; rejects as PGlite.create would. */
  static async open(options: ThreadedPGliteOptions): Promise<ThreadedPGlite> {
    const modules = await compiledWasm();
    const loadDataDir =
      options.loadDataDir === undefined ? undefined : new Uint8Array(await options.loadDataDir.arrayBuffer());
    const workerData: ThreadOpenOptions = {
      dataDir: options.dataDir,
      loadDataDir,
      startParams: options.startParams,
      pgliteWasmModule: modules.pglite,
      initdbWasmModule: modules.initdb,
      testRequests: options.testRequests ?? false,
    };
    const transferList = loadDataDir === undefined ? [] : [loadDataDir.buffer as ArrayBuffer];
    const worker = startWorkerThread(import.meta.url, 'pglite-thread', { workerData, transferList });
    const database = new ThreadedPGlite(worker);
    try {
      await database.waitReady;
    } catch (error) {
      await worker.terminate();
      throw error;
    }
    return database;
  }

  get ready(): boolean {
    return this.#ready && this.#gone === undefined;
  }

  get closed(): boolean {
    return this.#closed;
  }

  async query<T>(query: string, params: unknown[] = [], options?: QueryOptions): Promise<Results<T>> {
    return this.#query<T>(undefined, query, params, options);
  }

  async exec(query: string, options?: QueryOptions): Promise<Results[]> {
    return this.#exec(undefined, query, options);
  }

  async transaction<T>(callback: (transaction: EmbeddedTransaction) => Promise<T>): Promise<T> {
    const id = (await this.#request({ type: 'begin' })) as number;
    const transaction = new ThreadTransaction(this, id);
    let result: T;
    try {
      result = await callback(transaction);
    } catch (error) {
      transaction.end();
      // As PGlite: the callback's error, unless the ROLLBACK itself fails.
      await this.#request({ type: 'end', transaction: id, commit: false });
      throw error;
    }
    transaction.end();
    await this.#request({ type: 'end', transaction: id, commit: true });
    return result;
  }

  async dumpDataDir(compression?: 'none' | 'gzip' | 'auto'): Promise<Blob> {
    const bytes = (await this.#request({ type: 'dump', compression })) as Uint8Array;
    return new Blob([bytes]);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      if (this.#gone === undefined) await this.#request({ type: 'close' }, { evenClosed: true });
    } finally {
      await this.#worker.terminate();
    }
  }

  /** Kills the database's thread as a bug in it would (tests: what pending work hears). */
  async crashForTest(): Promise<void> {
    await this.#request({ type: 'test-crash' });
  }

  /** @internal A statement, in a transaction (its id) or not. */
  async _query<T>(
    transaction: number | undefined,
    query: string,
    params: unknown[],
    options: QueryOptions | undefined,
  ): Promise<Results<T>> {
    return this.#query<T>(transaction, query, params, options);
  }

  /** @internal */
  async _exec(
    transaction: number | undefined,
    query: string,
    options: QueryOptions | undefined,
  ): Promise<Results[]> {
    return this.#exec(transaction, query, options);
  }

  /** @internal */
  async _rollback(transaction: number): Promise<void> {
    await this.#request({ type: 'rollback', transaction });
  }

  async #query<T>(
    transaction: number | undefined,
    text: string,
    params: unknown[],
    options: QueryOptions | undefined,
  ): Promise<Results<T>> {
    const crossing = crossingOptions(options);
    const result = (await this.#request({
      type: 'query',
      ...(transaction === undefined ? {} : { transaction }),
      text,
      params: params.map(crossingParameter),
      options: crossing,
    })) as Results<T>;
    if (options?.parsers !== undefined) parseRows(result, options.parsers, options.rowMode);
    return result;
  }

  async #exec(
    transaction: number | undefined,
    text: string,
    options: QueryOptions | undefined,
  ): Promise<Results[]> {
    const results = (await this.#request({
      type: 'exec',
      ...(transaction === undefined ? {} : { transaction }),
      text,
      options: crossingOptions(options),
    })) as Results[];
    const parsers = options?.parsers;
    if (parsers !== undefined) for (const result of results) parseRows(result, parsers, options?.rowMode);
    return results;
  }

  /** Sends `body` with the next id and answers the thread's reply. */
  #request(body: ThreadRequestBody, { evenClosed = false } = {}): Promise<unknown> {
    const origin = new Error();
    if (this.#gone !== undefined) return Promise.reject(this.#gone);
    if (this.#closed && !evenClosed) return Promise.reject(new Error('The embedded database is closed'));
    const request = { ...body, id: this.#nextId++ } as ThreadRequest;
    return new Promise((resolve, reject) => {
      try {
        this.#worker.postMessage(request);
      } catch (error) {
        // A parameter that cannot be cloned (a function): this request fails, nothing else.
        reject(error);
        return;
      }
      if (this.#pending.size === 0 && this.#ready) this.#worker.ref();
      this.#pending.set(request.id, { resolve, reject, origin });
    });
  }

  #settle(reply: Extract<ThreadReply, { id: number }>): void {
    const pending = this.#pending.get(reply.id);
    if (pending === undefined) return;
    this.#pending.delete(reply.id);
    if (this.#pending.size === 0 && this.#ready) this.#worker.unref();
    if (reply.type === 'done') pending.resolve(reply.value);
    else pending.reject(errorFrom(reply.error, pending.origin));
  }
}

/** A transaction of a ThreadedPGlite: its statements carry its id; closed once its callback ends. */
class ThreadTransaction implements EmbeddedTransaction {
  #closed = false;

  constructor(
    private readonly database: ThreadedPGlite,
    private readonly id: number,
  ) {}

  get closed(): boolean {
    return this.#closed;
  }

  end(): void {
    this.#closed = true;
  }

  async query<T>(query: string, params: unknown[] = [], options?: QueryOptions): Promise<Results<T>> {
    this.#checkOpen();
    return this.database._query<T>(this.id, query, params, options);
  }

  async exec(query: string, options?: QueryOptions): Promise<Results[]> {
    this.#checkOpen();
    return this.database._exec(this.id, query, options);
  }

  async rollback(): Promise<void> {
    this.#checkOpen();
    await this.database._rollback(this.id);
    this.#closed = true;
  }

  #checkOpen(): void {
    // PGlite's own words.
    if (this.#closed) throw new Error('Transaction is closed');
  }
}

/**
 * The options that cross: parsers are functions, so the thread leaves their types as text and
 * they run here, on what comes back. Serializers, blobs and notice callbacks are not used by the
 * service, and would not survive the crossing: asking for them is an error, not a silent change.
 */
function crossingOptions(options: QueryOptions | undefined): ThreadQueryOptions {
  if (options === undefined) return {};
  const { rowMode, parsers, paramTypes, serializers, blob, onNotice } = options;
  if (serializers !== undefined || blob !== undefined || onNotice !== undefined) {
    throw new TypeError('The embedded database (in its own thread) takes no serializers, blob or onNotice');
  }
  return {
    ...(rowMode === undefined ? {} : { rowMode }),
    ...(paramTypes === undefined ? {} : { paramTypes }),
    ...(parsers === undefined ? {} : { rawTypes: Object.keys(parsers).map(Number) }),
  };
}

/**
 * A parameter as PGlite would read it. Structured cloning keeps plain data (strings, numbers,
 * bigints, Dates, Uint8Arrays, arrays, plain objects) but turns an instance of a class into a
 * plain object: one with its own `toString` is sent as that string, which is what PGlite makes of
 * it for a parameter of any type without a serializer of its own.
 */
function crossingParameter(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  if (value instanceof Date || ArrayBuffer.isView(value)) return value;
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype === Object.prototype || prototype === null) return value;
  return value.toString === Object.prototype.toString ? value : String(value);
}

/**
 * Applies the caller's parsers (by column type) to the text the thread left unparsed. In object
 * mode a name's value is its last column's, as PGlite makes it.
 */
function parseRows(
  result: Results<unknown>,
  parsers: NonNullable<QueryOptions['parsers']>,
  rowMode?: string,
): void {
  const columns = new Map<string | number, number>();
  result.fields.forEach((field, index) => {
    columns.set(rowMode === 'array' ? index : field.name, field.dataTypeID);
  });
  const parsed = [...columns].flatMap(([key, type]) => {
    const parser = parsers[type] as ((value: string, type: number) => unknown) | undefined;
    return parser === undefined ? [] : [{ key, type, parser }];
  });
  if (parsed.length === 0) return;
  for (const row of result.rows as Record<string | number, unknown>[]) {
    for (const { key, type, parser } of parsed) {
      const value = row[key];
      if (value !== null && value !== undefined) row[key] = parser(value as string, type);
    }
  }
}

/** The thread's error again, its PostgreSQL fields on it, its stack where the request was made. */
function errorFrom(serialized: SerializedError, origin: Error): EmbeddedDatabaseError {
  const error = new EmbeddedDatabaseError(serialized.message);
  Object.assign(error, serialized.fields);
  const frames = origin.stack?.split('\n').slice(1).join('\n');
  error.stack = `${serialized.name}: ${serialized.message}\n${frames ?? ''}`;
  return error;
}

/** PGlite's compiled WASM (the server's type library names WebAssembly's types only through PGlite's). */
type WasmModule = NonNullable<PGliteOptions['pgliteWasmModule']>;
const webAssembly = (
  globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<WasmModule> } }
).WebAssembly;

/** PGlite's WASM, compiled once per process: each thread instantiates the shared compiled code. */
let wasm: Promise<{ pglite: WasmModule; initdb: WasmModule }> | undefined;

function compiledWasm(): Promise<{ pglite: WasmModule; initdb: WasmModule }> {
  wasm ??= (async () => {
    const folder = path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
    const compile = async (file: string) => webAssembly.compile(await readFile(path.join(folder, file)));
    const [pglite, initdb] = await Promise.all([compile('pglite.wasm'), compile('initdb.wasm')]);
    return { pglite, initdb };
  })();
  // A failure is not kept: the next open tries again.
  wasm.catch(() => {
    wasm = undefined;
  });
  return wasm;
}

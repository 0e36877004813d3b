// The thread that owns the embedded database (ThreadedPGlite, pglite-worker.ts): PGlite runs its
// WASM here, so a long statement holds this thread, never the service's event loop.
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, type PGliteOptions, type Transaction } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import type {
  SerializedError,
  ThreadOpenOptions,
  ThreadQueryOptions,
  ThreadReply,
  ThreadRequest,
} from './protocol.js';

if (parentPort === null) throw new Error('pglite-thread runs as the worker thread of ThreadedPGlite');
const port = parentPort;
const options = workerData as ThreadOpenOptions;

function reply(message: ThreadReply, transfer: ArrayBuffer[] = []): void {
  port.postMessage(message, transfer);
}

/** PGlite's errors carry PostgreSQL's fields (`code`, `constraint`, `detail`…) as own properties. */
function serializeError(error: unknown): SerializedError {
  if (!(error instanceof Error))
    return { name: 'Error', message: String(error), stack: undefined, fields: {} };
  const fields: Record<string, string | number | boolean> = {};
  for (const [name, value] of Object.entries(error)) {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
      fields[name] = value;
  }
  return { name: error.name, message: error.message, stack: error.stack, fields };
}

/** PGlite's query options from what crossed: the caller's parsed types left as text. */
function queryOptions(crossed: ThreadQueryOptions) {
  const parsers: Record<number, (value: string) => string> = {};
  for (const type of crossed.rawTypes ?? []) parsers[type] = (value) => value;
  return {
    ...(crossed.rowMode === undefined ? {} : { rowMode: crossed.rowMode }),
    ...(crossed.paramTypes === undefined ? {} : { paramTypes: crossed.paramTypes }),
    ...(crossed.rawTypes === undefined ? {} : { parsers }),
  };
}

async function open(): Promise<PGlite> {
  const settings: PGliteOptions = {
    extensions: { vector },
    ...(options.startParams === undefined ? {} : { startParams: [...options.startParams] }),
    ...(options.loadDataDir === undefined ? {} : { loadDataDir: new Blob([options.loadDataDir]) }),
    ...(options.pgliteWasmModule === undefined ? {} : { pgliteWasmModule: options.pgliteWasmModule }),
    ...(options.initdbWasmModule === undefined ? {} : { initdbWasmModule: options.initdbWasmModule }),
  };
  return options.dataDir === undefined ? PGlite.create(settings) : PGlite.create(options.dataDir, settings);
}

/** An open transaction: PGlite's handle, and how the service's `end` reaches its callback. */
interface OpenTransaction {
  readonly handle: Transaction;
  end(commit: boolean, replyTo: number): void;
}

const transactions = new Map<number, OpenTransaction>();

/** Thrown inside PGlite's transaction callback to have it roll back; not an error of anyone's. */
const ROLL_BACK = Symbol('roll back');

/**
 * Opens a PGlite transaction and keeps it open, its callback waiting for the service's `end`:
 * meanwhile statements tagged with its id run in it, and others wait on PGlite's own mutex.
 */
function begin(pglite: PGlite, id: number): void {
  let replyTo: number | undefined;
  pglite
    .transaction(async (handle) => {
      const ended = new Promise<boolean>((resolve) => {
        transactions.set(id, {
          handle,
          end: (commit, endId) => {
            replyTo = endId;
            resolve(commit);
          },
        });
      });
      // The transaction's id is its `begin` request's.
      reply({ type: 'done', id, value: id });
      if (!(await ended)) throw ROLL_BACK;
    })
    .then(
      () => {
        if (replyTo !== undefined) reply({ type: 'done', id: replyTo, value: undefined });
      },
      (error: unknown) => {
        // Before the callback ran (BEGIN failed), the `begin` request hears it; after, the `end`.
        if (error === ROLL_BACK) reply({ type: 'done', id: replyTo ?? id, value: undefined });
        else reply({ type: 'failed', id: replyTo ?? id, error: serializeError(error) });
      },
    )
    .finally(() => transactions.delete(id));
}

/** Where a statement runs: in its open transaction, or on the database (after open transactions). */
function target(pglite: PGlite, transaction: number | undefined): PGlite | Transaction {
  if (transaction === undefined) return pglite;
  const open = transactions.get(transaction);
  // PGlite's own words for a statement after its transaction ended.
  if (open === undefined) throw new Error('Transaction is closed');
  return open.handle;
}

async function handle(pglite: PGlite, request: ThreadRequest): Promise<void> {
  switch (request.type) {
    case 'query': {
      const on = target(pglite, request.transaction);
      const value = await on.query(request.text, request.params, queryOptions(request.options));
      reply({ type: 'done', id: request.id, value });
      return;
    }
    case 'exec': {
      const on = target(pglite, request.transaction);
      const value = await on.exec(request.text, queryOptions(request.options));
      reply({ type: 'done', id: request.id, value });
      return;
    }
    case 'begin':
      begin(pglite, request.id);
      return;
    case 'end': {
      const open = transactions.get(request.transaction);
      if (open === undefined) throw new Error('Transaction is closed');
      open.end(request.commit, request.id);
      return;
    }
    case 'rollback': {
      const on = target(pglite, request.transaction) as Transaction;
      await on.rollback();
      reply({ type: 'done', id: request.id, value: undefined });
      return;
    }
    case 'dump': {
      const archive = await pglite.dumpDataDir(request.compression);
      const bytes = new Uint8Array(await archive.arrayBuffer());
      reply({ type: 'done', id: request.id, value: bytes }, [bytes.buffer]);
      return;
    }
    case 'close':
      await pglite.close();
      reply({ type: 'done', id: request.id, value: undefined });
      return;
    case 'test-crash':
      if (!options.testRequests) throw new Error('test requests are not enabled');
      // Thrown outside any promise: the thread dies as it would of a bug, with an 'error' event.
      setImmediate(() => {
        throw new Error('the database thread crashed (test)');
      });
      return;
  }
}

const opening = open();
// Requests are taken in the order they came; each waits for the database to be open.
port.on('message', (request: ThreadRequest) => {
  opening
    .then((pglite) => handle(pglite, request))
    .catch((error: unknown) => reply({ type: 'failed', id: request.id, error: serializeError(error) }));
});
opening.then(
  () => reply({ type: 'ready' }),
  (error: unknown) => {
    reply({ type: 'open-failed', error: serializeError(error) });
    port.close();
  },
);

// The messages between ThreadedPGlite (pglite-worker.ts, the service's thread) and the thread that
// owns the database (pglite-thread.ts). Types only: both sides import it, neither loads PGlite here.
import type { PGliteOptions } from '@electric-sql/pglite';

/** How the thread opens PGlite (`workerData`): what `openEmbedded` would pass to `PGlite.create`. */
export interface ThreadOpenOptions {
  /** The folder PGlite keeps its files in; undefined keeps the database in memory. */
  readonly dataDir: string | undefined;
  /** A `dumpDataDir` archive to start an in-memory database from. */
  readonly loadDataDir: Uint8Array | undefined;
  readonly startParams: readonly string[] | undefined;
  /** Compiled once per process and shared: each new thread would otherwise compile PGlite's WASM anew. */
  readonly pgliteWasmModule: PGliteOptions['pgliteWasmModule'];
  readonly initdbWasmModule: PGliteOptions['initdbWasmModule'];
  /** Whether the thread obeys `test-crash` (tests only). */
  readonly testRequests: boolean;
}

/** The query options that can cross a thread: parsers (functions) stay on the caller's side. */
export interface ThreadQueryOptions {
  readonly rowMode?: 'array' | 'object';
  readonly paramTypes?: number[];
  /** Types the thread leaves as PostgreSQL's text, for the caller's own parsers to read. */
  readonly rawTypes?: number[];
}

/**
 * A request of the service's thread. `transaction` (an id of a `begin` request) puts a statement in
 * that open transaction; without it, the statement waits for open transactions, as on PGlite.
 */
export type ThreadRequest =
  | {
      readonly type: 'query';
      readonly id: number;
      readonly transaction?: number;
      readonly text: string;
      readonly params: unknown[];
      readonly options: ThreadQueryOptions;
    }
  | {
      readonly type: 'exec';
      readonly id: number;
      readonly transaction?: number;
      readonly text: string;
      readonly options: ThreadQueryOptions;
    }
  /** Opens a transaction, answered once BEGIN ran; its id is this request's. */
  | { readonly type: 'begin'; readonly id: number }
  /** Ends a transaction: COMMIT (unless rolled back already), or ROLLBACK. */
  | { readonly type: 'end'; readonly id: number; readonly transaction: number; readonly commit: boolean }
  /** `Transaction.rollback()`: ROLLBACK now, the transaction closed for further statements. */
  | { readonly type: 'rollback'; readonly id: number; readonly transaction: number }
  | { readonly type: 'dump'; readonly id: number; readonly compression: 'none' | 'gzip' | 'auto' | undefined }
  | { readonly type: 'close'; readonly id: number }
  | { readonly type: 'test-crash'; readonly id: number };

/** An error as it crosses: its message and every plain field (PostgreSQL's `code`, `constraint`…). */
export interface SerializedError {
  readonly name: string;
  readonly message: string;
  readonly stack: string | undefined;
  readonly fields: Readonly<Record<string, string | number | boolean>>;
}

export type ThreadReply =
  | { readonly type: 'ready' }
  | { readonly type: 'open-failed'; readonly error: SerializedError }
  | { readonly type: 'done'; readonly id: number; readonly value: unknown }
  | { readonly type: 'failed'; readonly id: number; readonly error: SerializedError };

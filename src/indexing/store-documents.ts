import { Batcher } from '../batcher.js';
import {
  type DocumentToStore,
  replaceDocument,
  type StatementSizers,
  statementSizers,
  storeNewDocuments,
} from '../db/repositories/documents.js';
import type { SqlConnection } from '../db/sql-connection.js';

/** A document to store, and the signal of the job that stores it. */
interface StoreRequest {
  readonly document: DocumentToStore;
  readonly signal: AbortSignal;
}

/** How one document's store ended: its id, or what stopped it (which fails that document alone). */
type StoreOutcome = { readonly id: number } | { readonly error: unknown };

/**
 * The store stage of a job: documents ready together are stored together. New ones (their caller
 * found none stored) go several to a statement (`storeNewDocuments`): a corpus of small documents
 * cost a statement each, and each statement its planning, its triggers and its commit in
 * PostgreSQL and its write and wake-up on the event loop, which searches wait behind. The others,
 * and a new one that statement did not store, are replaced one at a time (`replaceDocument`).
 *
 * At most `concurrency` batches are under way; documents ready meanwhile wait and go in the next,
 * so that the more the database lags, the more each statement carries. That bound also keeps the
 * event loop free: a batch of vectors answers dozens of files at once, and each built its statement
 * (every vector as text) in one stretch before the first was sent (bench/indexing, with embeddings).
 */
export class DocumentStore {
  private readonly batcher: Batcher<StoreRequest, StoreOutcome>;
  /** Kept for the job, so that PGlite's statements learn their size from the ones before. */
  private readonly sizers: StatementSizers;

  constructor(
    private readonly sql: SqlConnection,
    options: { readonly concurrency: number; readonly maxDocuments: number },
  ) {
    this.sizers = statementSizers(sql);
    this.batcher = new Batcher((requests) => this.storeAll(requests), {
      maxBatchSize: options.maxDocuments,
      maxConcurrentRuns: options.concurrency,
    });
  }

  /** Stores the document (with what `options.completes` writes beside it); answers its id. */
  async store(document: DocumentToStore, signal: AbortSignal): Promise<number> {
    signal.throwIfAborted();
    const outcome = await this.batcher.submit({ document, signal });
    if ('error' in outcome) throw outcome.error;
    return outcome.id;
  }

  /**
   * Throws only when the statement storing several new documents fails: the batcher then tries
   * each document alone, so one that cannot be stored fails alone.
   */
  private async storeAll(requests: readonly StoreRequest[]): Promise<StoreOutcome[]> {
    const outcomes: (StoreOutcome | undefined)[] = requests.map(({ signal }) =>
      signal.aborted ? { error: signal.reason } : undefined,
    );
    const fresh = requests.flatMap((request, index) =>
      outcomes[index] === undefined && request.document.options.storedChunks === undefined ? [index] : [],
    );
    const ids = await storeNewDocuments(
      this.sql,
      this.sizers,
      fresh.map((index) => (requests[index] as StoreRequest).document),
    );
    for (const [position, index] of fresh.entries()) {
      const id = ids[position];
      if (id !== undefined) outcomes[index] = { id };
    }
    for (const [index, { document }] of requests.entries()) {
      if (outcomes[index] !== undefined) continue;
      const { fields, contentHash, chunks, embeddings, options } = document;
      try {
        // A new one the statement did not store was stored meanwhile, or does not fit one: replaced
        // without trying that statement again.
        const id = await replaceDocument(this.sql, fields, contentHash, chunks, embeddings, {
          ...options,
          storedChunks: options.storedChunks ?? 0,
        });
        outcomes[index] = { id };
      } catch (error) {
        outcomes[index] = { error };
      }
    }
    return outcomes as StoreOutcome[];
  }
}

import type { QueryOptions, Results } from '@electric-sql/pglite';
import type { EmbeddedDatabase, EmbeddedTransaction } from './pglite-worker.js';

/**
 * PGlite that counts the statements and transactions that may have written, once each has ended.
 * This process is the database's only client (its folder is locked to it), and PGlite runs one
 * statement at a time: so a count read before a statement is sent, and found the same later,
 * means nothing written since was hidden from that statement. A search uses that to skip asking
 * the database what changed (`TeamLexicalIndexes`). Statements sent by `readOnlyQuery` or
 * `readOnlyExec` are not counted; every other one is, whatever it does: a read counted as a write
 * costs a search one statement, a write not counted would show a search stale results.
 */
export class WriteCountingDatabase implements EmbeddedDatabase {
  #ended = 0;

  constructor(private readonly inner: EmbeddedDatabase) {}

  /** The database whose statements are counted. */
  get counted(): EmbeddedDatabase {
    return this.inner;
  }

  /** Statements and transactions that may have written, ended (committed, failed or rolled back) so far. */
  get writesEnded(): number {
    return this.#ended;
  }

  get waitReady(): Promise<void> {
    return this.inner.waitReady;
  }

  get ready(): boolean {
    return this.inner.ready;
  }

  get closed(): boolean {
    return this.inner.closed;
  }

  query<T>(query: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>> {
    return this.#counted(this.inner.query<T>(query, params, options));
  }

  /** A statement its author declares writes nothing: not counted. */
  readOnlyQuery<T>(query: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>> {
    return this.inner.query<T>(query, params, options);
  }

  /** Statements their author declares write nothing: not counted. */
  readOnlyExec(query: string, options?: QueryOptions): Promise<Results[]> {
    return this.inner.exec(query, options);
  }

  exec(query: string, options?: QueryOptions): Promise<Results[]> {
    return this.#counted(this.inner.exec(query, options));
  }

  /** Counted as one write when it ends: its statements are seen by others only then. */
  transaction<T>(callback: (transaction: EmbeddedTransaction) => Promise<T>): Promise<T> {
    return this.#counted(this.inner.transaction(callback));
  }

  dumpDataDir(compression?: 'none' | 'gzip' | 'auto'): Promise<Blob> {
    return this.inner.dumpDataDir(compression);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  #counted<T>(work: Promise<T>): Promise<T> {
    return work.finally(() => {
      this.#ended += 1;
    });
  }
}

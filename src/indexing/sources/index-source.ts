import type { DocumentFields, StoredDocumentState } from '../../db/repositories/documents.js';
import type { IndexJobItemRow, IndexJobRow } from '../../db/repositories/index-jobs.js';

/** The fetch stage's answer for one item: bytes to parse, or "nothing changed, no need to look". */
export type FetchedItem =
  | {
      readonly kind: 'content';
      readonly fields: DocumentFields;
      /**
       * `fields.title` only stands in (a file name, a first line): a title the document gives
       * itself replaces it, as it replaces a blank one.
       */
      readonly titleIsFallback?: boolean;
      readonly mimeType: string;
      readonly bytes: Uint8Array;
      readonly fileName?: string;
    }
  | { readonly kind: 'unchanged'; readonly fields: DocumentFields };

/**
 * Where an index job's documents come from. `expand` and `fetch` throw `SourceError` (retryable
 * or not) or `FileFailure` (a final outcome for that file); everything else is a bug.
 */
export interface IndexSource {
  /**
   * Turns the request into one item per document (folders listed, the wiki space listed) and
   * removes stored documents a complete listing no longer has. Must be idempotent: a crash may
   * run it again.
   */
  expand(job: IndexJobRow, signal: AbortSignal): Promise<void>;
  /** The document an item becomes, before anything is fetched (for recording failures). */
  fields(job: IndexJobRow, item: IndexJobItemRow): DocumentFields;
  fetch(
    job: IndexJobRow,
    item: IndexJobItemRow,
    stored: StoredDocumentState | undefined,
    signal: AbortSignal,
  ): Promise<FetchedItem>;
  /**
   * Whether the job's requester may replace a stored document someone else brought in. Absent: the
   * source is the authority on content and access (Drive, a wiki), so whoever reads it may.
   */
  mayReplace?(job: IndexJobRow, stored: StoredDocumentState): Promise<boolean>;
  /** Called once an item's outcome is final: what was kept only for it (an uploaded file) can go. */
  release?(item: IndexJobItemRow): Promise<void>;
}

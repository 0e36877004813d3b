import { createHash } from 'node:crypto';
import { accountAccess, type DocumentAccess, memberReader, peopleAccess, TEAM_ACCESS } from '../../access.js';
import {
  type DocumentFields,
  mayReplaceAnothersDocument,
  type StoredDocumentState,
} from '../../db/repositories/documents.js';
import { type IndexJobItemRow, type IndexJobRow, readItemContent } from '../../db/repositories/index-jobs.js';
import { FileFailure } from '../document.js';
import type { IndexingDependencies } from '../indexing-dependencies.js';
import { resolveMimeType } from '../parse/parse-document.js';
import type { FetchedItem, IndexSource } from './index-source.js';
import { documentFieldsOf } from './source-items.js';

/** What an upload item carries in its payload (the file's bytes, if any, are in `content`). */
export type UploadPayload = {
  /** The title the client gave; blank when none, and the document's own title then wins. */
  readonly title: string;
  /**
   * Shown when neither the client nor the document names it: for JSON, `titleFromText` (its own
   * title or first heading or paragraph, as far as its start shows), else the `external_id`; for
   * a file, its name. Absent where the client gave a title (which it never replaces), and in
   * payloads queued before titles fell back, whose `title` was always set.
   */
  readonly fallbackTitle?: string;
  readonly url?: string | null;
  readonly metadata?: Record<string, unknown> | null;
  /** Set for JSON documents. */
  readonly text?: string;
  /** Set for uploaded files. */
  readonly mimeType?: string;
  readonly fileName?: string;
  /** Where an uploaded file waits in the upload store (older payloads: `index_job_items.content`). */
  readonly uploadKey?: string;
  /** SHA-256 of an uploaded file's bytes: the same bytes again are unchanged without parsing them. */
  readonly sha256?: string;
  /** `team` (absent in payloads queued before visibility existed) or `private`: the uploader alone. */
  readonly visibility?: UploadVisibility;
};

/** Who may open an upload: the whole team (the default) or only the member who posted it. */
export type UploadVisibility = 'team' | 'private';

/** JSON documents are read as Markdown: plain text parses the same, and headings are kept. */
const JSON_TEXT_MIME_TYPE = 'text/markdown';

/** Documents posted to `POST /v1/documents`: already here, nothing to list or download. */
export class UploadSource implements IndexSource {
  constructor(private readonly deps: Pick<IndexingDependencies, 'sql' | 'uploads'>) {}

  async expand(): Promise<void> {}

  fields(job: IndexJobRow, item: IndexJobItemRow): DocumentFields {
    const payload = item.payload as unknown as UploadPayload;
    return documentFieldsOf(job, item, 'upload', {
      // Uploads belong to the team, not to a connector.
      connectorId: null,
      title: titleOf(payload, item.externalId),
      url: payload.url ?? null,
      mimeType: payload.text === undefined ? fileMimeType(payload) : JSON_TEXT_MIME_TYPE,
      sourceVersion: uploadVersion(payload),
      metadata: payload.metadata ?? {},
      fileName: payload.fileName ?? null,
      access:
        payload.visibility === 'private' ? privateAccess(job.requestedBy, job.requestedByEmail) : TEAM_ACCESS,
      // The poster's word is its content: it replaces only what they brought in (see `mayReplace`).
      onlyItsIndexer: true,
    });
  }

  /**
   * Another's upload is replaced only by an owner or admin who may open it: a member posting the
   * same `external_id` must not take over, empty, rewrite or fingerprint it.
   */
  async mayReplace(job: IndexJobRow, stored: StoredDocumentState): Promise<boolean> {
    if (job.requestedBy === null) return false;
    const replacer = memberReader({
      teamId: job.teamId,
      email: job.requestedByEmail ?? '',
      emailVerified: job.requestedByEmailVerified,
      userId: job.requestedBy,
    });
    return mayReplaceAnothersDocument(this.deps.sql, stored.id, replacer);
  }

  async release(item: IndexJobItemRow): Promise<void> {
    const { uploadKey } = item.payload as unknown as UploadPayload;
    if (uploadKey !== undefined) await this.deps.uploads.delete([uploadKey]);
  }

  async fetch(
    job: IndexJobRow,
    item: IndexJobItemRow,
    stored: StoredDocumentState | undefined,
  ): Promise<FetchedItem> {
    const payload = item.payload as unknown as UploadPayload;
    const fields = this.fields(job, item);
    // Without the client's title, one the document gives itself replaces the fallback.
    const titleIsFallback = payload.title.trim() === '';
    if (payload.text !== undefined) {
      return {
        kind: 'content',
        fields,
        titleIsFallback,
        mimeType: JSON_TEXT_MIME_TYPE,
        bytes: Buffer.from(payload.text, 'utf8'),
      };
    }
    // The same bytes under the same titles as the stored document's: nothing to parse or embed again.
    if (
      fields.sourceVersion !== null &&
      stored?.sourceVersion === fields.sourceVersion &&
      stored.status === 'indexed'
    ) {
      return { kind: 'unchanged', fields };
    }
    const bytes =
      payload.uploadKey === undefined
        ? await readItemContent(this.deps.sql, job.id, item.externalId)
        : await this.deps.uploads.read(payload.uploadKey);
    if (bytes === undefined) throw new FileFailure('not_found', 'The uploaded file is no longer stored');
    return {
      kind: 'content',
      fields,
      titleIsFallback,
      mimeType: payload.mimeType ?? 'application/octet-stream',
      bytes,
      ...(payload.fileName === undefined ? {} : { fileName: payload.fileName }),
    };
  }
}

/** A private upload: its poster's account alone (nobody once the poster is gone). */
function privateAccess(userId: number | null, email: string | null): DocumentAccess {
  return userId === null ? peopleAccess() : accountAccess(userId, email);
}

/** The client's title, else the fallback (or, failing both, the `external_id`): never blank. */
function titleOf(payload: UploadPayload, externalId: string): string {
  const given = payload.title.trim();
  if (given !== '') return given;
  const fallback = payload.fallbackTitle?.trim() ?? '';
  return fallback === '' ? externalId : fallback;
}

/**
 * A file's type as its label and extension give it (`application/octet-stream` on `notes.md` is
 * text/markdown), also for a file that is skipped or fails before its content is read; parsing
 * may still find a better one from the content.
 */
function fileMimeType(payload: UploadPayload): string | null {
  if (payload.mimeType === undefined) return null;
  return resolveMimeType(payload.mimeType, payload.fileName) ?? payload.mimeType;
}

/**
 * An uploaded file's version: its bytes with the titles it was posted under (they are part of
 * what is indexed). JSON documents have none: parsing their text costs little.
 */
function uploadVersion(payload: UploadPayload): string | null {
  if (payload.sha256 === undefined) return null;
  return createHash('sha256')
    .update(`${payload.sha256}\u0000${payload.title}\u0000${payload.fallbackTitle ?? ''}`)
    .digest('hex');
}

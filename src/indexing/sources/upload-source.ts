import type { DocumentFields } from '../../db/repositories/documents.js';
import { type IndexJobItemRow, type IndexJobRow, readItemContent } from '../../db/repositories/index-jobs.js';
import { FileFailure } from '../document.js';
import type { IndexingDependencies } from '../indexing-dependencies.js';
import type { FetchedItem, IndexSource } from './index-source.js';

/** What an upload item carries in its payload (the file's bytes, if any, are in `content`). */
export interface UploadPayload {
  readonly title: string;
  readonly url?: string | null;
  readonly metadata?: Record<string, unknown> | null;
  /** Set for JSON documents. */
  readonly text?: string;
  /** Set for uploaded files. */
  readonly mimeType?: string;
  readonly fileName?: string;
}

/** JSON documents are read as Markdown: plain text parses the same, and headings are kept. */
const JSON_TEXT_MIME_TYPE = 'text/markdown';

/** Documents posted to `POST /v1/documents`: already here, nothing to list or download. */
export class UploadSource implements IndexSource {
  constructor(private readonly deps: Pick<IndexingDependencies, 'sql'>) {}

  async expand(): Promise<void> {}

  fields(job: IndexJobRow, item: IndexJobItemRow): DocumentFields {
    const payload = item.payload as unknown as UploadPayload;
    return {
      teamId: job.teamId,
      source: 'upload',
      externalId: item.externalId,
      connectorId: null,
      title: payload.title,
      url: payload.url ?? null,
      mimeType: payload.text === undefined ? (payload.mimeType ?? null) : JSON_TEXT_MIME_TYPE,
      sourceVersion: null,
      sourceModifiedAt: null,
      originId: null,
      metadata: payload.metadata ?? {},
    };
  }

  async fetch(job: IndexJobRow, item: IndexJobItemRow): Promise<FetchedItem> {
    const payload = item.payload as unknown as UploadPayload;
    const fields = this.fields(job, item);
    if (payload.text !== undefined) {
      return {
        kind: 'content',
        fields,
        mimeType: JSON_TEXT_MIME_TYPE,
        bytes: Buffer.from(payload.text, 'utf8'),
      };
    }
    const bytes = await readItemContent(this.deps.sql, job.id, item.externalId);
    if (bytes === undefined) throw new FileFailure('not_found', 'The uploaded file is no longer stored');
    return {
      kind: 'content',
      fields,
      mimeType: payload.mimeType ?? 'application/octet-stream',
      bytes,
      ...(payload.fileName === undefined ? {} : { fileName: payload.fileName }),
    };
  }
}

import { createHash } from 'node:crypto';
import type { Caller } from '../db/repositories/users.js';
import { ServiceError } from '../errors.js';
import { isSupportedMimeType } from '../indexing/parse/parse-document.js';
import type { ServiceDependencies } from './dependencies.js';
import { type QueuedIndexJob, queueIndexJob } from './queue-index-job.js';

export interface UploadedTextDocument {
  readonly external_id: string;
  readonly title: string;
  readonly text: string;
  readonly url?: string | null;
  readonly metadata?: object | null;
}

export interface UploadedFile {
  readonly externalId: string;
  readonly fileName: string;
  readonly mimeType: string;
  readonly bytes: Uint8Array;
}

/** Queues JSON documents for indexing into the caller's team; an `external_id` posted again replaces it. */
export async function uploadTextDocuments(
  deps: ServiceDependencies,
  caller: Caller,
  documents: readonly UploadedTextDocument[],
): Promise<QueuedIndexJob> {
  const seen = new Map<string, number>();
  const issues = [];
  for (const [index, document] of documents.entries()) {
    const first = seen.get(document.external_id);
    if (first !== undefined) {
      issues.push({
        type: 'value_error',
        loc: ['body', 'documents', index, 'external_id'],
        msg: `Value error, external_id "${document.external_id}" is also documents[${first}]'s: one document per external_id`,
      });
    }
    seen.set(document.external_id, index);
  }
  if (issues.length > 0) throw ServiceError.validation(issues);
  return queueIndexJob(deps, {
    teamId: caller.teamId,
    connectorId: null,
    kind: 'upload',
    requestedBy: caller.userId,
    request: { documents: documents.length },
    requestHash: null,
    secretsSealed: null,
    items: documents.map((document) => ({
      externalId: document.external_id,
      name: document.title,
      payload: {
        title: document.title,
        text: document.text,
        url: document.url ?? null,
        metadata: document.metadata ?? {},
      },
    })),
  });
}

/** Queues uploaded files (multipart) for indexing; each file's `external_id` defaults to its name. */
export async function uploadFiles(
  deps: ServiceDependencies,
  caller: Caller,
  files: readonly UploadedFile[],
): Promise<QueuedIndexJob> {
  if (files.length === 0) {
    throw ServiceError.validation([{ type: 'missing', loc: ['body', 'file'], msg: 'Field required' }]);
  }
  const byId = new Map(files.map((file) => [file.externalId, file]));
  return queueIndexJob(deps, {
    teamId: caller.teamId,
    connectorId: null,
    kind: 'upload',
    requestedBy: caller.userId,
    request: { files: [...byId.keys()] },
    requestHash: null,
    secretsSealed: null,
    items: [...byId.values()].map((file) => ({
      externalId: file.externalId,
      name: file.fileName,
      payload: {
        title: file.fileName,
        mimeType: file.mimeType,
        fileName: file.fileName,
        sha256: createHash('sha256').update(file.bytes).digest('hex'),
      },
      content: file.bytes,
    })),
  });
}

/** What the upload endpoint reads, for the refusal's message. */
const SUPPORTED_FORMATS = 'PDF, DOCX, Markdown, plain text, HTML, CSV, TSV and JSON';

/**
 * Refuses a file whose type (or, untyped, extension) no parser reads, before its bytes are read:
 * 415, so nothing of the request is stored.
 */
export function assertUploadableFile(fileName: string, mimeType: string): void {
  if (isSupportedMimeType(mimeType, fileName)) return;
  throw new ServiceError(
    'unsupported_media_type',
    `${fileName} (${mimeType || 'no type'}) is not a document type this service reads: upload ${SUPPORTED_FORMATS}`,
  );
}

import type { StoredUpload } from '../adapters/upload-store/upload-store.js';
import type { Caller } from '../caller.js';
import { ServiceError } from '../errors.js';
import { titleFromText } from '../indexing/parse/document-title.js';
import { resolveMimeType } from '../indexing/parse/parse-document.js';
import type { UploadPayload, UploadVisibility } from '../indexing/sources/upload-source.js';
import type { ServiceDependencies } from './dependencies.js';
import { type QueuedIndexJob, queueIndexJob } from './queue-index-job.js';

export interface UploadedTextDocument {
  readonly external_id: string;
  /** Empty or missing: the text's own title, else its first heading or paragraph, else `external_id`. */
  readonly title?: string | null;
  /** Blank: the document is skipped as `empty` (and a stored one of that id loses its chunks). */
  readonly text: string;
  readonly url?: string | null;
  readonly metadata?: object | null;
  /** `team` (default) or `private`: the uploader alone may open it. */
  readonly visibility?: UploadVisibility;
}

export interface UploadedFile {
  readonly externalId: string;
  readonly fileName: string;
  /** As `assertUploadableFile` resolved it. */
  readonly mimeType: string;
  /** Its bytes, streamed into the upload store as they arrived. */
  readonly stored: StoredUpload;
  /** The client's title (a `title` form field); else the file's own, else its name. */
  readonly title?: string;
  /** Stored as the document's link. */
  readonly url?: string;
  /** Stored with the document as given. */
  readonly metadata?: Record<string, unknown>;
  /** `team` (default) or `private`: the uploader alone may open it. */
  readonly visibility?: UploadVisibility;
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
    items: await uploadItemsOf(documents),
  });
}

/** Documents whose titles are derived in one turn of the event loop (about 0.1 ms each). */
const TITLES_PER_TURN = 50;

/**
 * The job's items for JSON documents. One without the client's title gets the title its text gives
 * itself (its Markdown parsed, up to 4 KiB), `TITLES_PER_TURN` at a time, the event loop turning
 * between: a request of 500 documents otherwise held it 50 ms, and every search and `/healthz` of
 * the process with it. A client's title is never replaced by it, so it is not derived then.
 */
export async function uploadItemsOf(
  documents: readonly UploadedTextDocument[],
): Promise<{ externalId: string; name: string; payload: UploadPayload }[]> {
  const items = [];
  let derived = 0;
  for (const document of documents) {
    const title = document.title?.trim() ?? '';
    let fallbackTitle: string | undefined;
    if (title === '') {
      if (derived > 0 && derived % TITLES_PER_TURN === 0)
        await new Promise((resolve) => setImmediate(resolve));
      derived += 1;
      fallbackTitle = titleFromText(document.text) ?? document.external_id;
    }
    const payload: UploadPayload = {
      title,
      ...(fallbackTitle === undefined ? {} : { fallbackTitle }),
      text: document.text,
      url: document.url ?? null,
      metadata: (document.metadata ?? {}) as Record<string, unknown>,
      visibility: document.visibility ?? 'team',
    };
    items.push({ externalId: document.external_id, name: fallbackTitle ?? title, payload });
  }
  return items;
}

/**
 * Stores one uploaded file as it streams in (`onChunk` sees each chunk's size first and may refuse
 * the request). Files of a request that is then refused are given back with `discardUploads`.
 */
export function storeUpload(
  deps: Pick<ServiceDependencies, 'uploads'>,
  content: AsyncIterable<Uint8Array>,
  onChunk: (bytes: number) => void,
): Promise<StoredUpload> {
  return deps.uploads.put(content, onChunk);
}

export async function discardUploads(
  deps: Pick<ServiceDependencies, 'uploads'>,
  uploads: readonly StoredUpload[],
): Promise<void> {
  await deps.uploads.delete(uploads.map((upload) => upload.key));
}

/**
 * Queues stored uploaded files (multipart) for indexing; each file's `external_id` defaults to
 * its name. The files of a request that is not queued are deleted; a file posted twice under one
 * `external_id` is kept once (the last).
 */
export async function uploadFiles(
  deps: ServiceDependencies,
  caller: Caller,
  files: readonly UploadedFile[],
): Promise<QueuedIndexJob> {
  const byId = new Map(files.map((file) => [file.externalId, file]));
  const unused = files.filter((file) => byId.get(file.externalId) !== file).map((file) => file.stored);
  try {
    if (files.length === 0) {
      throw ServiceError.validation([{ type: 'missing', loc: ['body', 'file'], msg: 'Field required' }]);
    }
    const queued = await queueFiles(deps, caller, [...byId.values()]);
    await discardUploads(deps, unused);
    return queued;
  } catch (error) {
    await discardUploads(
      deps,
      files.map((file) => file.stored),
    ).catch(() => {});
    throw error;
  }
}

function queueFiles(deps: ServiceDependencies, caller: Caller, files: readonly UploadedFile[]) {
  return queueIndexJob(deps, {
    teamId: caller.teamId,
    connectorId: null,
    kind: 'upload',
    requestedBy: caller.userId,
    request: { files: files.map((file) => file.externalId) },
    requestHash: null,
    secretsSealed: null,
    items: files.map((file) => {
      const payload: UploadPayload = {
        title: file.title?.trim() ?? '',
        fallbackTitle: file.fileName,
        mimeType: file.mimeType,
        fileName: file.fileName,
        url: file.url ?? null,
        metadata: file.metadata ?? {},
        uploadKey: file.stored.key,
        sha256: file.stored.sha256,
        visibility: file.visibility ?? 'team',
      };
      return { externalId: file.externalId, name: file.fileName, payload };
    }),
  });
}

/** What the upload endpoint reads, for the refusal's message. */
const SUPPORTED_FORMATS = 'PDF, DOCX, Markdown, plain text, HTML, CSV, TSV and JSON';

/**
 * The type to store for an uploaded file, before its bytes are read: as sent, or, when the
 * client sent one that says nothing (`application/octet-stream`, curl's default, or none), the
 * one its extension names; a file without an extension is left to its content (read when it is
 * parsed). Refuses a file no parser reads with 415, so nothing of the request is stored.
 */
export function assertUploadableFile(fileName: string, mimeType: string | undefined): string {
  const resolved = resolveMimeType(mimeType ?? '', fileName);
  if (resolved !== undefined) return resolved;
  throw new ServiceError(
    'unsupported_media_type',
    `${fileName} (${mimeType || 'no type'}) is not a document type this service reads: upload ${SUPPORTED_FORMATS}`,
  );
}

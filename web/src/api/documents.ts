import { ApiError, errorFromBody, requestJson, requestNothing } from './http';
import { reportSessionExpired } from './session-events';
import type { DocumentPage, DocumentWithChunks, IndexJob, QueuedJob, UploadVisibility } from './types';

export const DOCUMENTS_PAGE_SIZE = 50;

export interface DocumentQuery {
  /** googledrive, wiki or upload; absent: every source. */
  source?: string;
  offset?: number;
  signal?: AbortSignal;
}

/** GET /v1/documents: one page of the team's documents, newest first. */
export function listDocuments({ source, offset = 0, signal }: DocumentQuery = {}): Promise<DocumentPage> {
  return requestJson<DocumentPage>('GET', '/v1/documents', {
    query: { limit: DOCUMENTS_PAGE_SIZE, offset, source: source === '' ? undefined : source },
    ...(signal === undefined ? {} : { signal }),
  });
}

/** GET /v1/documents/{document_id}: the document and its stored passages. */
export function getDocument(documentId: string, signal?: AbortSignal): Promise<DocumentWithChunks> {
  return requestJson<DocumentWithChunks>('GET', `/v1/documents/${encodeURIComponent(documentId)}`, {
    ...(signal === undefined ? {} : { signal }),
  });
}

/** DELETE /v1/documents/{document_id}: the document and its chunks. */
export function deleteDocument(documentId: number): Promise<void> {
  return requestNothing('DELETE', `/v1/documents/${documentId}`);
}

/** GET /v1/documents/jobs/{result_id}: an upload's status, progress and per-file outcome. */
export function getUploadJob(resultId: string, signal?: AbortSignal): Promise<IndexJob> {
  return requestJson<IndexJob>('GET', `/v1/documents/jobs/${encodeURIComponent(resultId)}`, {
    ...(signal === undefined ? {} : { signal }),
  });
}

/**
 * POST /v1/documents, multipart: the `visibility` field (who may open the files), then each file in
 * a `file` part, named by its file name (its `external_id`). One request is one indexing job with
 * all its files. Through XMLHttpRequest rather than fetch: only XHR reports upload progress, which
 * is the request's (all its files together). Same origin, so the session cookie goes with it and the
 * browser adds the Origin header the service checks. Resolves to the queued job; a refusal (413 over
 * the service's limits, 415 for a type it does not read) rejects with its ApiError.
 */
export function uploadFiles(
  files: readonly File[],
  visibility: UploadVisibility,
  onProgress: (sentBytes: number, totalBytes: number) => void,
  signal?: AbortSignal,
): Promise<QueuedJob> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/v1/documents');
    xhr.setRequestHeader('accept', 'application/json');
    xhr.responseType = 'json';
    xhr.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable) onProgress(event.loaded, event.total);
    });
    xhr.addEventListener('load', () => {
      if (xhr.status === 202 || xhr.status === 200) {
        resolve(xhr.response as QueuedJob);
        return;
      }
      if (xhr.status === 401) reportSessionExpired();
      reject(errorFromBody(xhr.status, xhr.response));
    });
    xhr.addEventListener('error', () =>
      reject(new ApiError(0, 'The upload could not reach the service; check your connection and try again.')),
    );
    xhr.addEventListener('abort', () => reject(new DOMException('The upload was cancelled', 'AbortError')));
    signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    const form = new FormData();
    // The field ahead of the files, so a reader of the parts in order knows it before the files.
    form.append('visibility', visibility);
    for (const file of files) form.append('file', file, file.name);
    xhr.send(form);
  });
}

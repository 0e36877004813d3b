import { openAsBlob } from 'node:fs';
import path from 'node:path';
import { ServerUnreachableError } from './api-client.js';
import type { LocalFile } from './collect-files.js';
import {
  acceptedJobId,
  DOCUMENTS_PATH,
  refusal,
  splitIfTooLarge,
  stopIfRefused,
  type UploadContext,
} from './upload-context.js';

/** A local file with the id and name it is uploaded under. */
export interface FileUpload extends LocalFile {
  readonly externalId: string;
  readonly fileName: string;
}

export interface FileBatchLimits {
  /** Files per request: the service takes up to 100 (UPLOAD_MAX_FILES). */
  files: number;
  bytes: number;
  /** The smallest file the service refused as too large: no larger one is sent. */
  refusedFileBytes: number;
}

export const MAX_FILES_PER_REQUEST = 100;
export const DEFAULT_FILE_BATCH_BYTES = 8 * 1024 * 1024;

/**
 * A name the service stores exactly as sent: its multipart parser keeps only the part after the
 * last `/` or `\`, and `"`, CR and LF arrive percent-encoded.
 */
const VERBATIM_FILE_NAME = /^[^/\\"\r\n]+$/;

/** Each file with its `external_id`: the prefix and its path relative to the folder. */
export function fileUploads(files: readonly LocalFile[], externalIdPrefix: string): FileUpload[] {
  return files.map((file) => ({
    ...file,
    externalId: `${externalIdPrefix}${file.relativePath}`,
    fileName: path.posix.basename(file.relativePath),
  }));
}

/**
 * Groups files into requests. With several files in one request the service names each by its
 * file name, so only files whose `external_id` is their very name (top-level files, no prefix)
 * share requests; every other file goes alone, with its `external_id` field.
 */
export function* fileRequests(
  uploads: readonly FileUpload[],
  limits: FileBatchLimits,
): Generator<FileUpload[]> {
  let batch: FileUpload[] = [];
  let bytes = 0;
  for (const upload of uploads) {
    const shareable = upload.externalId === upload.fileName && VERBATIM_FILE_NAME.test(upload.fileName);
    if (!shareable) {
      yield [upload];
      continue;
    }
    if (batch.length > 0 && (batch.length >= limits.files || bytes + upload.size > limits.bytes)) {
      yield batch;
      batch = [];
      bytes = 0;
    }
    batch.push(upload);
    bytes += upload.size;
  }
  if (batch.length > 0) yield batch;
}

/**
 * Posts files as multipart. A 413 splits a request in halves, down to the one file the service
 * will not take (skipped as too_large); a file that cannot be read fails alone.
 */
export async function sendFileRequest(
  uploads: readonly FileUpload[],
  limits: FileBatchLimits,
  context: UploadContext,
): Promise<void> {
  const [only] = uploads;
  if (uploads.length === 1 && only !== undefined && only.size >= limits.refusedFileBytes) {
    record(context, only, 'skipped', 'too_large', 'larger than a file the service refused as too large');
    return;
  }
  let response: Awaited<ReturnType<typeof context.client.postForm>>;
  try {
    response = await context.client.postForm(DOCUMENTS_PATH, async () => {
      const form = new FormData();
      if (uploads.length === 1 && only !== undefined) form.append('external_id', only.externalId);
      for (const upload of uploads) {
        form.append(
          'file',
          await openAsBlob(upload.absolutePath, { type: upload.mimeType }),
          upload.fileName,
        );
      }
      return form;
    });
  } catch (error) {
    if (error instanceof ServerUnreachableError) throw error;
    // A file that vanished or cannot be read: find which, by sending each alone.
    if (uploads.length > 1) {
      for (const upload of uploads) await sendFileRequest([upload], limits, context);
      return;
    }
    if (only !== undefined) record(context, only, 'failed', 'read_error', messageOf(error));
    return;
  }
  const jobId = acceptedJobId(response);
  if (jobId !== undefined) {
    context.tracker.add(jobId, uploads.length);
    return;
  }
  stopIfRefused(response, context.client);
  const bytes = uploads.reduce((total, upload) => total + upload.size, 0);
  const tooLarge = await splitIfTooLarge(response, { items: uploads, bytes }, limits, {
    sendPart: (part) => sendFileRequest(part, limits, context),
    refuseAlone: (upload, message) => {
      limits.refusedFileBytes = Math.min(limits.refusedFileBytes, upload.size);
      record(context, upload, 'skipped', 'too_large', message);
    },
  });
  if (tooLarge) return;
  const { reason, message } = refusal(response);
  for (const upload of uploads) record(context, upload, 'failed', reason, message);
}

function record(
  context: UploadContext,
  upload: FileUpload,
  status: 'skipped' | 'failed',
  reason: string,
  message: string,
): void {
  context.outcomes.record({ status, id: upload.externalId, name: upload.relativePath, reason, message });
}

function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause: unknown = error.cause;
  return cause instanceof Error ? `${error.message}: ${cause.message}` : error.message;
}

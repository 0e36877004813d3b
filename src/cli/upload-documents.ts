import { validationIssuesOf } from './api-client.js';
import type { JsonlRecord, UploadDocument } from './read-jsonl.js';
import {
  acceptedJobId,
  DOCUMENTS_PATH,
  refusal,
  splitIfTooLarge,
  stopIfRefused,
  type UploadContext,
} from './upload-context.js';

/** A document on its way, serialised once. */
export interface PendingDocument {
  readonly line: number;
  readonly document: UploadDocument;
  readonly json: string;
}

/** How many documents, and bytes, one request carries; lowered as the service refuses bigger ones. */
export interface DocumentBatchLimits {
  documents: number;
  bytes: number;
}

/** Comfortably under the service's default UPLOAD_MAX_BYTES (32 MiB); a 413 lowers it further. */
export const DEFAULT_JSON_BATCH_BYTES = 8 * 1024 * 1024;

/**
 * Groups the documents of `records` into batches within `limits` (read afresh for each batch, so
 * what a refusal taught applies to the batches after it). Invalid records go to `onInvalid`.
 */
export async function* documentBatches(
  records: AsyncIterable<JsonlRecord>,
  limits: DocumentBatchLimits,
  onInvalid: (record: Extract<JsonlRecord, { kind: 'invalid' }>) => void,
): AsyncGenerator<PendingDocument[]> {
  let batch: PendingDocument[] = [];
  let bytes = 0;
  for await (const record of records) {
    if (record.kind === 'invalid') {
      onInvalid(record);
      continue;
    }
    const json = JSON.stringify(record.document);
    const size = Buffer.byteLength(json) + 1;
    if (batch.length > 0 && bytes + size > limits.bytes) {
      yield batch;
      batch = [];
      bytes = 0;
    }
    batch.push({ line: record.line, document: record.document, json });
    bytes += size;
    if (batch.length >= limits.documents) {
      yield batch;
      batch = [];
      bytes = 0;
    }
  }
  if (batch.length > 0) yield batch;
}

/**
 * Posts one batch. When the service finds it too long (422 on `documents`) or too large (413),
 * splits it and posts the parts, and lowers `limits` for the batches to come; documents the
 * service refuses one by one (422 on `documents[i]`) fail alone and the rest are posted again.
 */
export async function sendDocumentBatch(
  batch: readonly PendingDocument[],
  limits: DocumentBatchLimits,
  context: UploadContext,
): Promise<void> {
  const body = `{"documents":[${batch.map((item) => item.json).join(',')}]}`;
  const response = await context.client.postJson(DOCUMENTS_PATH, body);
  const jobId = acceptedJobId(response);
  if (jobId !== undefined) {
    context.tracker.add(jobId, batch.length);
    return;
  }
  stopIfRefused(response, context.client);

  const tooLarge = await splitIfTooLarge(response, { items: batch, bytes: Buffer.byteLength(body) }, limits, {
    sendPart: (part) => sendDocumentBatch(part, limits, context),
    refuseAlone: (item, message) => record(context, item, 'skipped', 'too_large', message),
  });
  if (tooLarge) return;

  if (response.status === 422) {
    const issues = validationIssuesOf(response.body);
    const tooLong = issues.find(
      (issue) =>
        issue.type === 'too_long' &&
        issue.loc.length === 2 &&
        issue.loc[0] === 'body' &&
        issue.loc[1] === 'documents',
    );
    if (tooLong !== undefined && batch.length > 1) {
      // The service says how many it takes (`ctx`, or only the message once the response schema
      // dropped `ctx`): go straight there rather than halving step by step.
      const accepted = Number(tooLong.ctx?.max_length ?? /at most (\d+) item/.exec(tooLong.msg)?.[1]);
      const halved = Math.ceil(batch.length / 2);
      const size = Number.isInteger(accepted) && accepted > 0 ? Math.min(halved, accepted) : halved;
      limits.documents = Math.min(limits.documents, size);
      return sendInParts(batch, size, limits, context);
    }
    const refusedAt = new Map<number, string[]>();
    for (const issue of issues) {
      const [part, field, index, ...rest] = issue.loc;
      if (
        part !== 'body' ||
        field !== 'documents' ||
        typeof index !== 'number' ||
        batch[index] === undefined
      ) {
        continue;
      }
      refusedAt.set(index, [
        ...(refusedAt.get(index) ?? []),
        `${rest.join('.') || 'document'}: ${issue.msg}`,
      ]);
    }
    if (refusedAt.size > 0) {
      for (const [index, messages] of refusedAt) {
        const item = batch[index];
        if (item !== undefined) record(context, item, 'failed', 'invalid_document', messages.join('; '));
      }
      const rest = batch.filter((_, index) => !refusedAt.has(index));
      if (rest.length > 0) await sendDocumentBatch(rest, limits, context);
      return;
    }
  }

  const { reason, message } = refusal(response);
  for (const item of batch) record(context, item, 'failed', reason, message);
}

async function sendInParts(
  batch: readonly PendingDocument[],
  size: number,
  limits: DocumentBatchLimits,
  context: UploadContext,
): Promise<void> {
  for (let start = 0; start < batch.length; start += size) {
    await sendDocumentBatch(batch.slice(start, start + size), limits, context);
  }
}

function record(
  context: UploadContext,
  item: PendingDocument,
  status: 'skipped' | 'failed',
  reason: string,
  message: string,
): void {
  context.outcomes.record({
    status,
    id: item.document.external_id,
    line: item.line,
    name: item.document.title,
    reason,
    message,
  });
}

import { stat } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiClient, detailOf, ServerUnreachableError } from './api-client.js';
import { FatalError, UsageError } from './cli-errors.js';
import { collectFiles, type LocalFile, MIME_TYPE_BY_EXTENSION, mimeTypeOf } from './collect-files.js';
import { JobTracker } from './job-tracker.js';
import { type ItemOutcome, Outcomes } from './outcomes.js';
import { ProgressDisplay, type TextSink } from './progress.js';
import { countJsonlRecords, readJsonlDocuments } from './read-jsonl.js';
import type { UploadContext } from './upload-context.js';
import { DEFAULT_JSON_BATCH_BYTES, documentBatches, sendDocumentBatch } from './upload-documents.js';
import {
  DEFAULT_FILE_BATCH_BYTES,
  fileRequests,
  fileUploads,
  MAX_FILES_PER_REQUEST,
  sendFileRequest,
} from './upload-files.js';

export interface IngestOptions {
  /** A folder, a `.jsonl` file, or one document file. */
  readonly source: string;
  readonly url: URL;
  readonly token: string;
  /** JSON documents per request, at most: lowered to what the service accepts. */
  readonly batchSize: number;
  /** Upload requests in flight. */
  readonly concurrency: number;
  /** Wait for the jobs to finish (else report them queued). */
  readonly wait: boolean;
  readonly externalIdPrefix: string;
  readonly retries: number;
  /** How long an outage (503, connection refused) is waited out; 0: only `retries` apply. */
  readonly maxWaitSeconds: number;
}

export interface IngestIo {
  readonly stderr: TextSink;
  readonly stderrIsTty: boolean;
  readonly stderrColumns?: number;
  /** How often job status is polled; 500 ms unless a test wants it faster. */
  readonly pollIntervalMs?: number;
  readonly retryBaseMs?: number;
}

/** What a run did: printed as text or, with `--json`, as this very object. */
export interface IngestSummary {
  readonly source: string;
  readonly indexed: number;
  readonly skipped: number;
  readonly failed: number;
  /** Handed to jobs that were not waited for (`--no-wait`, or a run that stopped early). */
  readonly queued: number;
  readonly skipped_reasons: Record<string, number>;
  readonly failed_reasons: Record<string, number>;
  /** The first skipped items with their reasons (not those skipped as unchanged). */
  readonly skipped_examples: ItemOutcome[];
  /** The first failed items with their reasons and messages. */
  readonly failures: ItemOutcome[];
  readonly jobs: string[];
  readonly elapsed_seconds: number;
  /** Why the run stopped before the end, or null. */
  readonly aborted: string | null;
}

const PROGRAM = 'knowledge-answers';
const DEFAULT_POLL_INTERVAL_MS = 500;
/** Waiting this long with no job moving earns a hint on stderr. */
const STALL_WARNING_MS = 60_000;
const JSONL_EXTENSIONS = new Set(['.jsonl', '.ndjson']);

type Source =
  | { readonly kind: 'jsonl'; readonly path: string }
  | { readonly kind: 'folder'; readonly path: string }
  | { readonly kind: 'file'; readonly path: string; readonly file: LocalFile };

/** Uploads a folder, JSONL file or file to the service, follows the indexing, and tallies it. */
export async function ingest(options: IngestOptions, io: IngestIo): Promise<IngestSummary> {
  const startedAt = Date.now();
  const source = await resolveSource(options.source);
  const progress = new ProgressDisplay(io.stderr, {
    tty: io.stderrIsTty,
    ...(io.stderrColumns === undefined ? {} : { columns: io.stderrColumns }),
  });
  // Uploads and job polls share this client, so an outage is waited out, and told, once for all.
  const client = new ApiClient({
    baseUrl: options.url,
    token: options.token,
    retries: options.retries,
    maxWaitMs: options.maxWaitSeconds * 1000,
    onUnavailable: (message) => progress.note(`${PROGRAM}: ${message}`),
    ...(io.retryBaseMs === undefined ? {} : { retryBaseMs: io.retryBaseMs }),
  });
  await checkAccess(client);

  const outcomes = new Outcomes();
  const tracker = new JobTracker(client, outcomes);
  const context: UploadContext = { client, tracker, outcomes };
  let total: number | undefined;
  let phase = 'uploading';
  let stoppedBy: unknown;
  // Without waiting, an item is as done as it will get here once a job has it.
  const draw = () =>
    progress.update({
      phase,
      done: outcomes.settled + (options.wait ? tracker.doneInPendingJobs : tracker.queuedItems),
      total,
    });

  let uploading = true;
  const follow = async () => {
    const interval = io.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
    let lastDone = -1;
    let lastMoveAt = Date.now();
    let warned = false;
    while (stoppedBy === undefined) {
      if (options.wait && tracker.pending > 0) {
        try {
          await tracker.pollOnce();
        } catch (error) {
          stoppedBy ??= error;
          return;
        }
        const done = outcomes.settled + tracker.doneInPendingJobs;
        // Time the service spent unavailable is not the worker's fault.
        const quietSince = Math.max(lastMoveAt, client.lastUnavailableAt);
        if (done !== lastDone) {
          lastDone = done;
          lastMoveAt = Date.now();
        } else if (!uploading && !warned && Date.now() - quietSince > STALL_WARNING_MS) {
          // The service queues uploads for a worker process: without one, nothing ever moves.
          warned = true;
          progress.note(
            `${PROGRAM}: no progress for ${STALL_WARNING_MS / 1000} s; is the service's worker running? (Ctrl-C stops waiting; the jobs stay queued)`,
          );
        }
      }
      draw();
      if (!uploading && (!options.wait || tracker.pending === 0)) return;
      await sleep(interval);
    }
  };
  const following = follow();

  try {
    await upload(source, options, context, {
      setTotal: (count) => {
        total = count;
      },
      isStopped: () => stoppedBy !== undefined,
      stop: (error) => {
        stoppedBy ??= error;
      },
      uploaded: draw,
    });
  } catch (error) {
    stoppedBy ??= error;
  } finally {
    uploading = false;
    phase = 'indexing';
  }
  await following;
  progress.finish();

  const skippedExamples = outcomes.skippedExamples;
  return {
    source: options.source,
    indexed: outcomes.indexed,
    skipped: outcomes.skipped,
    failed: outcomes.failed,
    queued: tracker.itemsInPendingJobs,
    skipped_reasons: Object.fromEntries(outcomes.skippedReasons),
    failed_reasons: Object.fromEntries(outcomes.failedReasons),
    skipped_examples: skippedExamples,
    failures: outcomes.failedExamples,
    jobs: tracker.jobIds,
    elapsed_seconds: Math.round((Date.now() - startedAt) / 10) / 100,
    aborted: stoppedBy === undefined ? null : stopMessage(stoppedBy),
  };
}

interface UploadControl {
  setTotal(count: number): void;
  isStopped(): boolean;
  stop(error: unknown): void;
  /** Called after each request, to redraw the progress. */
  uploaded(): void;
}

async function upload(
  source: Source,
  options: IngestOptions,
  context: UploadContext,
  control: UploadControl,
): Promise<void> {
  if (source.kind === 'jsonl') {
    // Counted alongside the upload: the bar shows a total as soon as the count is in.
    countJsonlRecords(source.path).then(control.setTotal, () => {});
    const limits = { documents: options.batchSize, bytes: DEFAULT_JSON_BATCH_BYTES };
    const records = readJsonlDocuments(source.path, { externalIdPrefix: options.externalIdPrefix });
    const batches = documentBatches(records, limits, (invalid) =>
      context.outcomes.record({
        status: 'failed',
        id: invalid.id,
        line: invalid.line,
        name: invalid.id ?? '',
        reason: 'invalid_line',
        message: invalid.message,
      }),
    );
    await inParallel(batches, options.concurrency, control, async (batch) => {
      await sendDocumentBatch(batch, limits, context);
    });
    return;
  }

  const { files, skipped, unreadable } =
    source.kind === 'folder'
      ? await collectFiles(source.path)
      : { files: [source.file], skipped: [], unreadable: [] };
  control.setTotal(files.length + skipped.length + unreadable.length);
  for (const entry of unreadable) {
    context.outcomes.record({
      status: 'failed',
      id: null,
      name: entry.relativePath,
      reason: 'read_error',
      message: entry.message,
    });
  }
  for (const file of skipped) {
    context.outcomes.record({
      status: 'skipped',
      id: null,
      name: file.relativePath,
      reason: file.reason,
      message: file.message,
    });
  }
  const limits = {
    files: MAX_FILES_PER_REQUEST,
    bytes: DEFAULT_FILE_BATCH_BYTES,
    refusedFileBytes: Number.POSITIVE_INFINITY,
  };
  const requests = fileRequests(fileUploads(files, options.externalIdPrefix), limits);
  await inParallel(requests, options.concurrency, control, async (uploads) => {
    await sendFileRequest(uploads, limits, context);
  });
}

/**
 * Runs `handle` on each item with `concurrency` in flight. Items are taken one at a time, so a
 * streamed source is read only as fast as it is sent. Any error stops the run (after the requests
 * in flight), and is reported.
 */
async function inParallel<T>(
  items: AsyncIterator<T> | Iterator<T>,
  concurrency: number,
  control: UploadControl,
  handle: (item: T) => Promise<void>,
): Promise<void> {
  const worker = async () => {
    while (!control.isStopped()) {
      try {
        const next = await items.next();
        if (next.done === true) return;
        await handle(next.value);
        control.uploaded();
      } catch (error) {
        control.stop(error);
        return;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

async function resolveSource(source: string): Promise<Source> {
  const resolved = path.resolve(source);
  let stats: Awaited<ReturnType<typeof stat>>;
  try {
    stats = await stat(resolved);
  } catch {
    throw new UsageError(`${source}: no such file or folder`);
  }
  if (stats.isDirectory()) return { kind: 'folder', path: resolved };
  if (!stats.isFile()) throw new UsageError(`${source}: not a file or folder`);
  if (JSONL_EXTENSIONS.has(path.extname(resolved).toLowerCase())) return { kind: 'jsonl', path: resolved };
  const mimeType = mimeTypeOf(resolved);
  if (mimeType === undefined) {
    throw new UsageError(
      `${source}: not a type the service reads (${[...MIME_TYPE_BY_EXTENSION.keys(), ...JSONL_EXTENSIONS].join(' ')})`,
    );
  }
  const relativePath = path.basename(resolved);
  return {
    kind: 'file',
    path: resolved,
    file: { absolutePath: resolved, relativePath, size: stats.size, mimeType },
  };
}

/** Fails fast, before reading anything, when the service is not there or refuses the token. */
async function checkAccess(client: ApiClient): Promise<void> {
  let response: Awaited<ReturnType<ApiClient['get']>>;
  try {
    response = await client.get('v1/users/me');
  } catch (error) {
    // Unreachable, or a URL fetch will not call at all (a blocked port such as 1 or 6000).
    throw new FatalError(`cannot reach the service at ${client.displayUrl}: ${describe(error)}`);
  }
  if (response.status === 200) return;
  if (response.status === 401 || response.status === 403) {
    throw new FatalError(
      `the service at ${client.displayUrl} refused the token (${response.status} ${detailOf(response.body)}): sign in again for a new one`,
    );
  }
  if (response.status === 404) {
    throw new FatalError(`${client.displayUrl} does not look like a knowledge-answers service (404)`);
  }
  throw new FatalError(
    `the service at ${client.displayUrl} answered ${response.status}: ${detailOf(response.body)}`,
  );
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.cause instanceof Error ? `${error.message} (${error.cause.message})` : error.message;
}

function stopMessage(error: unknown): string {
  if (error instanceof FatalError) return error.message;
  if (error instanceof ServerUnreachableError) return `the service stopped answering: ${error.message}`;
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

// Uploading JSON documents through POST /v1/documents as a client would, and following the
// jobs until every one has finished (bench/indexing, bench/eval-scifact).
import { expectJson } from './http.js';
import type { ScifactDocument } from './scifact.js';
import { sleep } from './stats.js';

/** A JSON document as `POST /v1/documents` takes it. */
export interface UploadDocument {
  readonly external_id: string;
  readonly title: string;
  readonly text: string;
  readonly metadata: Record<string, unknown>;
}

/** SciFact's abstracts as upload documents: external id = the corpus `_id`. */
export function scifactUploads(documents: readonly ScifactDocument[]): UploadDocument[] {
  return documents.map((document) => ({
    external_id: document.id,
    title: document.title,
    text: document.text,
    metadata: document.metadata,
  }));
}

/** What one upload job did. */
export interface JobOutcome {
  readonly id: string;
  readonly documents: number;
  readonly finishedAtMs: number;
  readonly indexed: number;
  readonly skipped: number;
  readonly failed: number;
  readonly chunks: number;
  readonly status: string;
  readonly problems: readonly string[];
}

export interface UploadOptions {
  /** Upload requests in flight at once. */
  readonly inFlight: number;
  /** Give up after this many seconds from the first request. */
  readonly timeoutSeconds: number;
  /** False when the service died: stop waiting. */
  readonly alive: () => boolean;
  readonly progress: (message: string) => void;
  /** How often the oldest unfinished job is looked at. Default 250 ms. */
  readonly pollIntervalMs?: number;
}

export interface UploadOutcome {
  /** When the first request was sent (epoch ms). */
  readonly startedAtMs: number;
  /** When the last upload request was answered, from the first one's start. */
  readonly uploadsAnsweredMs: number;
  readonly uploadLatencies: readonly number[];
  readonly jobs: readonly JobOutcome[];
  /** Requests following the jobs that failed without an answer (and were sent again). */
  readonly pollErrors: readonly string[];
}

interface JobView {
  readonly result_ready: boolean;
  readonly status: string;
  readonly error: string | null;
  readonly progress: { done: number; total: number; indexed: number; skipped: number; failed: number };
  readonly files: readonly {
    id: string;
    status: string;
    reason: string | null;
    chunks: number;
    message: string | null;
  }[];
  readonly finished_at: string | null;
}

/** Splits documents into request bodies of `batchSize` documents. */
export function uploadBatches(
  documents: readonly UploadDocument[],
  batchSize: number,
): { bodies: string[]; sizes: number[] } {
  const bodies: string[] = [];
  const sizes: number[] = [];
  for (let start = 0; start < documents.length; start += batchSize) {
    const batch = documents.slice(start, start + batchSize);
    bodies.push(JSON.stringify({ documents: batch }));
    sizes.push(batch.length);
  }
  return { bodies, sizes };
}

/**
 * Uploads the request bodies, `inFlight` requests at a time, as a client would, while following
 * the jobs (the oldest unfinished one, every `pollIntervalMs`) until every one has finished.
 */
export async function uploadAndWait(
  baseUrl: string,
  headers: Record<string, string>,
  bodies: readonly string[],
  batchSizes: readonly number[],
  options: UploadOptions,
): Promise<UploadOutcome> {
  const pollIntervalMs = options.pollIntervalMs ?? 250;
  const jobIds: (string | undefined)[] = bodies.map(() => undefined);
  const uploadLatencies: number[] = [];
  let uploadsAnsweredAt = 0;
  let uploadError: unknown;
  let next = 0;
  const startedAt = performance.now();
  const startedAtMs = performance.timeOrigin + startedAt;
  const lanes = Array.from({ length: Math.min(options.inFlight, bodies.length) }, async () => {
    while (next < bodies.length && uploadError === undefined) {
      const index = next;
      next += 1;
      const sent = performance.now();
      const response = await fetch(`${baseUrl}/v1/documents`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: bodies[index],
        signal: AbortSignal.timeout(120_000),
      });
      const text = await response.text();
      uploadLatencies.push(performance.now() - sent);
      if (response.status !== 202) {
        throw new Error(`upload ${index + 1} answered ${response.status}: ${text.slice(0, 500)}`);
      }
      jobIds[index] = (JSON.parse(text) as { result_id: string }).result_id;
      uploadsAnsweredAt = Math.max(uploadsAnsweredAt, performance.now());
    }
  });
  const uploads = Promise.all(lanes).catch((error: unknown) => {
    uploadError = error;
  });

  const jobs: JobOutcome[] = [];
  const pollErrors: string[] = [];
  const deadline = startedAt + options.timeoutSeconds * 1000;
  let lastReport = startedAt;
  while (jobs.length < bodies.length) {
    if (uploadError !== undefined) throw uploadError;
    if (!options.alive()) throw new Error('a service process exited while indexing');
    if (performance.now() > deadline) {
      throw new Error(
        `not indexed within ${options.timeoutSeconds} s (${jobs.length} of ${bodies.length} upload jobs finished)`,
      );
    }
    const id = jobIds[jobs.length];
    if (id === undefined) {
      await sleep(20);
      continue;
    }
    const job = await pollJob(`${baseUrl}/v1/documents/jobs/${id}`, headers, pollErrors, options.progress);
    if (!job.result_ready) {
      if (performance.now() - lastReport > 10_000) {
        lastReport = performance.now();
        const done = jobs.reduce((sum, outcome) => sum + outcome.documents, 0) + job.progress.done;
        options.progress(
          `  ${((lastReport - startedAt) / 1000).toFixed(0)} s: ${done.toLocaleString('en-US')} documents done`,
        );
      }
      await sleep(pollIntervalMs);
      continue;
    }
    const problems = job.files
      .filter((file) => file.status !== 'indexed')
      .map(
        (file) =>
          `${file.id}: ${file.status}${file.reason === null ? '' : ` (${file.reason})`}${file.message === null ? '' : `: ${file.message}`}`,
      );
    jobs.push({
      id,
      documents: batchSizes[jobs.length] ?? 0,
      finishedAtMs: job.finished_at === null ? Date.now() : Date.parse(job.finished_at),
      indexed: job.progress.indexed,
      skipped: job.progress.skipped,
      failed: job.progress.failed,
      chunks: job.files.reduce((sum, file) => sum + file.chunks, 0),
      status: job.status,
      problems: job.error === null ? problems : [`job: ${job.error}`, ...problems],
    });
  }
  await uploads;
  if (uploadError !== undefined) throw uploadError;
  return { startedAtMs, uploadsAnsweredMs: uploadsAnsweredAt - startedAt, uploadLatencies, jobs, pollErrors };
}

/**
 * One look at a job. A request that fails without an answer (the connection closed under it) is
 * sent again, up to 3 times, as a client following a job would; each such failure is recorded.
 */
async function pollJob(
  url: string,
  headers: Record<string, string>,
  errors: string[],
  progress: (message: string) => void,
): Promise<JobView> {
  for (let attempt = 1; ; attempt++) {
    try {
      return (await expectJson([200], 'GET', url, undefined, headers)) as JobView;
    } catch (error) {
      if (!(error instanceof TypeError) || attempt >= 3) throw error;
      const cause = error.cause instanceof Error ? error.cause.message : String(error.cause ?? '');
      errors.push(`${error.message}${cause === '' ? '' : ` (${cause})`}`);
      progress(`  following a job: ${errors.at(-1)}; asking again`);
    }
  }
}

import { Type } from 'typebox';
import type { IndexingDependencies } from '../../indexing/indexing-dependencies.js';
import { runIndexJob } from '../../indexing/run-index-job.js';
import { DEFAULT_HEARTBEAT, defineJob, type JobDefinition } from '../job-queue.js';
import { JobError, type RetrySettings } from '../retry-policy.js';

/** The queue of index jobs; a job's id is its `index_jobs` row's id. */
export const INDEX_DOCUMENTS_JOB = 'index-documents';

/**
 * Exponential from about 1 s, eight times: about 4 to 8 minutes in all, longer when a source's
 * Retry-After says so. Files still failing then are recorded as failed, and the job completes.
 */
export const INDEX_DOCUMENTS_RETRY: RetrySettings = {
  limit: 8,
  backoff: { type: 'exponential', delaySeconds: 1 },
};

export interface IndexDocumentsPayload {
  readonly indexJobId: string;
}

/** Runs index jobs: fetch, parse, chunk, embed and store every file of one request. */
export function indexDocumentsJob(
  deps: IndexingDependencies,
  concurrency: number,
): JobDefinition<IndexDocumentsPayload> {
  return defineJob({
    name: INDEX_DOCUMENTS_JOB,
    payloadSchema: Type.Object({ indexJobId: Type.String({ minLength: 36, maxLength: 36 }) }),
    retry: INDEX_DOCUMENTS_RETRY,
    // One attempt may run for hours (a large folder); the lease, renewed every few seconds, is
    // what brings a dead worker's job back within a minute.
    expireInSeconds: 12 * 3600,
    heartbeat: DEFAULT_HEARTBEAT,
    concurrency,
    handler: async ({ indexJobId }, context) => {
      const result = await runIndexJob(deps, indexJobId, {
        signal: context.signal,
        finalAttempt: context.finalAttempt,
      });
      if (result.kind === 'retry') {
        throw JobError.retryable(
          result.reason === 'rate_limited' ? 'rate_limited' : 'upstream_unavailable',
          `${result.pending} file(s) to try again: ${result.message}`,
          { retryAfterSeconds: result.retryAfterSeconds },
        );
      }
      return result.kind === 'finished' ? { status: result.status } : { status: 'nothing_to_do' };
    },
  });
}

import { randomUUID } from 'node:crypto';
import type { NewIndexJob } from '../db/repositories/index-jobs.js';
import { INDEX_DOCUMENTS_JOB } from '../jobs/definitions/index-documents.js';
import type { ServiceDependencies } from './dependencies.js';

/** The answer to every request that starts indexing: the job to follow. */
export interface QueuedIndexJob {
  readonly result_id: string;
  readonly result_ready: false;
}

/**
 * Records an index job with its items and queues its background run in the same transaction:
 * the job exists exactly when its rows do, whatever crashes. While a job with the same
 * `requestHash` is still queued or running for the team, that job is answered instead.
 */
export async function queueIndexJob(
  deps: ServiceDependencies,
  job: Omit<NewIndexJob, 'id'>,
): Promise<QueuedIndexJob> {
  if (job.requestHash !== null) {
    const existing = await deps.data.indexJobs.findActiveJobByHash(job.teamId, job.requestHash);
    if (existing !== undefined) return { result_id: existing, result_ready: false };
  }
  const id = randomUUID();
  await deps.data.transaction(async (transaction) => {
    await transaction.indexJobs.insertIndexJob({ ...job, id });
    await transaction.jobs.send(INDEX_DOCUMENTS_JOB, { indexJobId: id }, { id });
  });
  deps.jobs.wake(INDEX_DOCUMENTS_JOB);
  return { result_id: id, result_ready: false };
}

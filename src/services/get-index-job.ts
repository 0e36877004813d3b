import { memberReader } from '../access.js';
import type { Caller } from '../caller.js';
import type { IndexJobKind } from '../db/repositories/index-jobs.js';
import { ServiceError } from '../errors.js';
import { INDEX_DOCUMENTS_JOB } from '../jobs/definitions/index-documents.js';
import type { ServiceDependencies } from './dependencies.js';
import { indexJobFileView, indexJobView } from './views.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * One of the caller's team's index jobs with its per-file status. `kind` narrows it to one
 * source (the uploads route shows upload jobs only); anything else is 404.
 */
export async function getIndexJob(
  deps: ServiceDependencies,
  caller: Caller,
  jobId: string,
  kind?: IndexJobKind,
) {
  if (!UUID.test(jobId)) throw new ServiceError('not_found', 'Job not found');
  let job = await deps.data.indexJobs.findIndexJob(jobId, caller.teamId);
  if (job === undefined || (kind !== undefined && job.kind !== kind)) {
    throw new ServiceError('not_found', 'Job not found');
  }
  if (job.status === 'queued' || job.status === 'running') {
    // A job whose every attempt died (crashes past its retry limit) never finished its own row.
    const queued = await deps.jobs.getJob(INDEX_DOCUMENTS_JOB, jobId);
    if (queued?.state === 'failed' || queued?.state === 'cancelled') {
      const message = queued.failure?.message ?? 'The indexing job stopped';
      for (const item of await deps.data.indexJobs.listItems(jobId, ['queued', 'indexing'])) {
        await deps.data.indexJobs.setItemOutcome(jobId, item.externalId, {
          status: 'failed',
          reason: 'internal_error',
          message,
        });
      }
      await deps.data.indexJobs.finishJob(jobId, 'failed', message);
      job = (await deps.data.indexJobs.findIndexJob(jobId, caller.teamId)) ?? job;
    }
  }
  const [items, progress] = await Promise.all([
    deps.data.indexJobs.listItems(jobId, undefined, { withPayload: false, readableBy: memberReader(caller) }),
    deps.data.indexJobs.jobProgress(jobId),
  ]);
  // Field order as the spec's clients see it: files after error.
  const { created_at, updated_at, finished_at, ...head } = indexJobView(job, progress);
  return { ...head, files: items.map(indexJobFileView), created_at, updated_at, finished_at };
}

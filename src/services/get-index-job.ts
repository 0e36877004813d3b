import { memberReader } from '../access.js';
import type { Caller } from '../caller.js';
import type { IndexJobKind } from '../db/repositories/index-jobs.js';
import { ServiceError } from '../errors.js';
import { INDEX_DOCUMENTS_JOB } from '../jobs/definitions/index-documents.js';
import { isUuid } from '../uuid.js';
import type { ServiceDependencies } from './dependencies.js';
import { indexJobFileView, indexJobView } from './views.js';

/**
 * One of the caller's team's index jobs with its per-file status, as far as the caller may see it:
 * a job they asked for whole, another's only with the files they may open (its progress counts
 * those alone), and one holding none of those is a 404, as is one of another team. `kind` narrows
 * it to one source (the uploads route shows upload jobs only).
 */
export async function getIndexJob(
  deps: ServiceDependencies,
  caller: Caller,
  jobId: string,
  kind?: IndexJobKind,
) {
  if (!isUuid(jobId)) throw new ServiceError('not_found', 'Job not found');
  const reader = memberReader(caller);
  let job = await deps.data.indexJobs.findIndexJob(jobId, reader);
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
      job = (await deps.data.indexJobs.findIndexJob(jobId, reader)) ?? job;
    }
  }
  const [items, progress] = await Promise.all([
    deps.data.indexJobs.listItems(jobId, undefined, { withPayload: false, readableBy: reader }),
    deps.data.indexJobs.jobProgress(jobId, reader),
  ]);
  // Files it reports done are searched in every process from the moment the client reads so.
  if (progress.done > 0) await deps.writesSearchable();
  // Field order as the spec's clients see it: files after error.
  const { created_at, updated_at, finished_at, ...head } = indexJobView(job, progress);
  return { ...head, files: items.map(indexJobFileView), created_at, updated_at, finished_at };
}

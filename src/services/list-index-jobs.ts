import { memberReader } from '../access.js';
import type { Caller } from '../caller.js';
import type { IndexJobRow, IndexJobStatusFilter } from '../db/repositories/index-jobs.js';
import { INDEX_DOCUMENTS_JOB } from '../jobs/definitions/index-documents.js';
import type { ServiceDependencies } from './dependencies.js';
import { getIndexJob } from './get-index-job.js';
import { indexJobFileView, indexJobView } from './views.js';

/** How many of a job's failed files a listing shows (its `progress.failed` counts them all). */
export const LISTED_FAILURES_PER_JOB = 5;

export interface IndexJobsQuery {
  /** `active`: queued or running; `finished`: completed or failed; absent: every job. */
  readonly status?: IndexJobStatusFilter | undefined;
  readonly limit: number;
  readonly offset: number;
}

/**
 * A page of the caller's team's index jobs they may see, newest first: each as GET
 * /v1/jobs/{result_id} shows it (only the files the caller may open, counted and named), but with its first few failed files (`failures`) and its first file's name instead of every
 * file, and `pending` counted in its progress. Two statements whatever the page's size: the jobs, then their counts and
 * failures.
 */
export async function listIndexJobs(deps: ServiceDependencies, caller: Caller, query: IndexJobsQuery) {
  const reader = memberReader(caller);
  let jobs = await deps.data.indexJobs.listTeamJobs(reader, query);
  if (await settleDeadJobs(deps, caller, jobs)) jobs = await deps.data.indexJobs.listTeamJobs(reader, query);
  const summaries = await deps.data.indexJobs.summarizeJobs(
    jobs.map((job) => job.id),
    LISTED_FAILURES_PER_JOB,
    reader,
  );
  // Files it reports done are searched in every process from the moment the client reads so.
  if ([...summaries.values()].some((summary) => summary.progress.done > 0)) await deps.writesSearchable();
  return {
    jobs: jobs.map((job) => {
      const summary = summaries.get(job.id);
      const progress = summary?.progress ?? {
        total: 0,
        done: 0,
        indexed: 0,
        skipped: 0,
        failed: 0,
        pending: 0,
      };
      return {
        ...indexJobView(job, progress),
        first_file_name: summary?.firstItemName ?? null,
        failures: (summary?.failures ?? []).map(indexJobFileView),
      };
    }),
  };
}

/**
 * A job whose every attempt died (crashes past its retry limit) never finished its own row, and
 * would be listed as running for ever: the queue is asked about each job the page shows as queued
 * or running, and those it gave up on are settled as GET /v1/jobs/{result_id} settles them. True
 * when one was.
 */
async function settleDeadJobs(
  deps: ServiceDependencies,
  caller: Caller,
  jobs: readonly IndexJobRow[],
): Promise<boolean> {
  const active = jobs.filter((job) => job.status === 'queued' || job.status === 'running');
  const dead = await Promise.all(
    active.map(async (job) => {
      const queued = await deps.jobs.getJob(INDEX_DOCUMENTS_JOB, job.id);
      return queued?.state === 'failed' || queued?.state === 'cancelled' ? job : undefined;
    }),
  );
  let settled = false;
  for (const job of dead) {
    if (job === undefined) continue;
    await getIndexJob(deps, caller, job.id);
    settled = true;
  }
  return settled;
}

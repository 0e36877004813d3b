import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { getIndexJob } from '../../../services/get-index-job.js';
import { LISTED_FAILURES_PER_JOB, listIndexJobs } from '../../../services/list-index-jobs.js';
import type { AppOptions } from '../../app-options.js';
import { callerOf } from '../../auth.js';
import { bearerSecurity, ErrorDetail, withErrors } from '../../schema-types.js';
import { IndexJobView, JobParams } from '../shared-schemas.js';
import { IndexJobList, JobsQuery } from './jobs.schema.js';

export const jobRoutes: FastifyPluginAsyncTypebox<AppOptions> = async (app, { deps }) => {
  app.get(
    '/v1/jobs',
    {
      schema: {
        tags: ['indexing'],
        summary: "The team's index jobs (Drive, wiki sync and upload), newest first, with their progress",
        description: `Each job as \`GET /v1/jobs/{result_id}\` shows it, except that \`files\` gives way to \`failures\`, the first ${LISTED_FAILURES_PER_JOB} failed files with their reasons (\`progress.failed\` counts them all) and \`first_file_name\` (the job's first file, to tell jobs apart), and \`progress\` also counts \`pending\` files. \`status=active\` lists queued and running jobs, \`status=finished\` completed and failed ones; paginated with \`limit\` (1–100, default 20) and \`offset\`. Only the caller's team's jobs are listed.`,
        security: bearerSecurity,
        querystring: JobsQuery,
        response: withErrors({ 200: IndexJobList }),
      },
    },
    async (request) => listIndexJobs(deps, callerOf(request), request.query),
  );

  app.get(
    '/v1/jobs/:result_id',
    {
      schema: {
        tags: ['indexing'],
        summary: "One of the team's index jobs (Drive, wiki sync or upload) with its per-file outcome",
        security: bearerSecurity,
        params: JobParams,
        response: withErrors({ 200: IndexJobView, 404: ErrorDetail }),
      },
    },
    async (request) => getIndexJob(deps, callerOf(request), request.params.result_id),
  );
};

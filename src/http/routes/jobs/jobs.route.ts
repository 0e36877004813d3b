import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { getIndexJob } from '../../../services/get-index-job.js';
import type { AppOptions } from '../../app.js';
import { callerOf } from '../../auth.js';
import { bearerSecurity, ErrorDetail, withErrors } from '../../schema-types.js';
import { IndexJobView, JobParams } from '../shared-schemas.js';

export const jobRoutes: FastifyPluginAsyncTypebox<AppOptions> = async (app, { deps }) => {
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

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { getIndexJob } from '../../../services/get-index-job.js';
import { indexDriveFiles } from '../../../services/index-drive-files.js';
import type { AppOptions } from '../../app.js';
import { callerOf } from '../../auth.js';
import { bearerSecurity, ErrorDetail, Nullable, SAFE_INTEGER_RANGE, withErrors } from '../../schema-types.js';
import { IndexJobView, JobParams, QueuedJobView, UserContextBody } from '../shared-schemas.js';

/** Most entries one request may name (folders count as one each, whatever they hold). */
export const DRIVE_MAX_FILES_PER_REQUEST = 1000;

/** A picked Drive entry (spec 2.4): every field required but `lastSyncedAt`. */
const DriveFileBody = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 256 }),
  serviceId: Type.String({ maxLength: 256 }),
  name: Type.String({ maxLength: 1024 }),
  description: Type.String({ maxLength: 16_384 }),
  type: Type.String({
    maxLength: 100,
    description: 'folder, document, file, …; the real MIME type comes from Drive',
  }),
  lastEditedUtc: Type.Integer({ ...SAFE_INTEGER_RANGE, description: 'milliseconds since the epoch' }),
  url: Type.String({ maxLength: 4096 }),
  sizeBytes: Type.Integer(SAFE_INTEGER_RANGE),
  lastSyncedAt: Nullable.String({ format: 'date' }),
});

const DriveFilesBody = Type.Object({
  files: Type.Array(DriveFileBody, { minItems: 1, maxItems: DRIVE_MAX_FILES_PER_REQUEST }),
  user_context: UserContextBody,
});

const DriveHeaders = Type.Object({
  'x-drive-authorization': Type.String({ minLength: 1, maxLength: 16_384 }),
});

export const driveRoutes: FastifyPluginAsyncTypebox<AppOptions> = async (app, { deps }) => {
  app.post(
    '/v2/drive/files',
    {
      schema: {
        tags: ['drive'],
        summary: 'Index picked Google Drive files and folders in the background',
        description:
          "Answers 202 at once with the job to follow (`GET /v2/drive/jobs/{result_id}`). `user_context` must be the caller's own (403 otherwise). `x-drive-authorization` is the caller's Drive access token (`Bearer <token>` or the bare token); it is stored encrypted for the job's life only. Re-sending a request while the same one runs answers that job.",
        security: bearerSecurity,
        headers: DriveHeaders,
        body: DriveFilesBody,
        response: withErrors({ 202: QueuedJobView, 403: ErrorDetail }),
      },
    },
    async (request, reply) => {
      const token = request.headers['x-drive-authorization'].replace(/^Bearer\s+/i, '').trim();
      const job = await indexDriveFiles(deps, callerOf(request), request.body, token);
      return reply.code(202).send(job);
    },
  );

  app.get(
    '/v2/drive/jobs/:result_id',
    {
      schema: {
        tags: ['drive'],
        summary: 'An indexing job: its status, progress and per-file outcome',
        description:
          "Any of the team's index jobs (Drive, wiki or upload: uploads answer with a job like the Drive one, so a client may follow every `result_id` here). Another team's job is 404.",
        security: bearerSecurity,
        params: JobParams,
        response: withErrors({ 200: IndexJobView, 404: ErrorDetail }),
      },
    },
    async (request) => getIndexJob(deps, callerOf(request), request.params.result_id),
  );
};

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { browseDriveFolder, MY_DRIVE_FOLDER_ID } from '../../../services/browse-drive-folder.js';
import { getIndexJob } from '../../../services/get-index-job.js';
import { indexDriveFiles } from '../../../services/index-drive-files.js';
import type { AppOptions } from '../../app-options.js';
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

const DriveBrowseQuery = Type.Object({
  folder_id: Type.String({
    minLength: 1,
    maxLength: 256,
    default: MY_DRIVE_FOLDER_ID,
    description: '`root` (My Drive, the default) or a folder id',
  }),
  page_token: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
});

const DriveEntry = Type.Object({
  id: Type.String(),
  name: Type.String(),
  mime_type: Type.String(),
  is_folder: Type.Boolean(),
  modified_time: Type.Union([Type.String(), Type.Null()]),
  size_bytes: Type.Union([Type.Integer(), Type.Null()], {
    description: "null for Google's own Docs, Sheets, Slides",
  }),
  url: Type.Union([Type.String(), Type.Null()]),
});

const DriveFolderView = Type.Object({
  folder_id: Type.String(),
  files: Type.Array(DriveEntry, { description: 'folders first, then files, by name (within the page)' }),
  next_page_token: Type.Union([Type.String(), Type.Null()]),
});

/** `Bearer <token>` or the bare token, as the header is documented. */
function driveTokenOf(header: string): string {
  return header.replace(/^Bearer\s+/i, '').trim();
}

export const driveRoutes: FastifyPluginAsyncTypebox<AppOptions> = async (app, { deps }) => {
  app.get(
    '/v2/drive/browse',
    {
      schema: {
        tags: ['drive'],
        summary: "One page of a folder of the caller's Google Drive, for picking what to index",
        description:
          "Lists a folder's children (not trashed, shared drives included) with the caller's Drive access token in `x-drive-authorization`, which is used for this request only. Drive's refusals: 400 for a token it rejects, 403, 404 for a folder it does not show, 429 with `Retry-After`, 502/504 when it fails.",
        security: bearerSecurity,
        headers: DriveHeaders,
        querystring: DriveBrowseQuery,
        response: withErrors({
          200: DriveFolderView,
          400: ErrorDetail,
          403: ErrorDetail,
          404: ErrorDetail,
          429: ErrorDetail,
          502: ErrorDetail,
          504: ErrorDetail,
        }),
      },
    },
    async (request, reply) => {
      const controller = new AbortController();
      // A chooser that moved on (the browser closed the request) stops waiting for Drive.
      reply.raw.once('close', () => {
        if (!reply.raw.writableFinished) controller.abort(new Error('the client closed the connection'));
      });
      return browseDriveFolder(
        deps,
        {
          accessToken: driveTokenOf(request.headers['x-drive-authorization']),
          folderId: request.query.folder_id,
          pageToken: request.query.page_token,
        },
        controller.signal,
      );
    },
  );

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
      const token = driveTokenOf(request.headers['x-drive-authorization']);
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

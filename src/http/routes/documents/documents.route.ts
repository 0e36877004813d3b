import multipart, { type Multipart } from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifySchema } from 'fastify';
import { Type } from 'typebox';
import { ServiceError } from '../../../errors.js';
import { deleteDocument } from '../../../services/delete-document.js';
import { getIndexJob } from '../../../services/get-index-job.js';
import { listDocuments } from '../../../services/list-documents.js';
import {
  assertUploadableFile,
  type UploadedFile,
  uploadFiles,
  uploadTextDocuments,
} from '../../../services/upload-documents.js';
import { ALSO_MULTIPART, type AppOptions } from '../../app.js';
import { callerOf } from '../../auth.js';
import { bearerSecurity, ErrorDetail, Nullable, withErrors } from '../../schema-types.js';
import { IndexJobView, JobParams, QueuedJobView } from '../shared-schemas.js';
import { canonicalSource, SourceName } from '../source-filter.js';

/** Most files one multipart upload may carry. */
export const UPLOAD_MAX_FILES = 20;

const DocumentsQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 500, default: 50 }),
  offset: Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 0 }),
  // The names and aliases POST /v1/search takes; any other is a 422.
  source: Type.Optional(SourceName),
});

/**
 * The multipart upload as /docs shows it (a file picker per `file` part); the request itself is
 * read part by part by the handler, not validated against this.
 */
const MultipartUploadForm = Type.Object({
  file: Type.Array(Type.String({ format: 'binary' }), {
    minItems: 1,
    maxItems: UPLOAD_MAX_FILES,
    description: `the files (up to ${UPLOAD_MAX_FILES}): PDF, DOCX, Markdown, text, HTML, CSV, JSON`,
  }),
  external_id: Type.Optional(Type.String({ description: "a single file's id (default: its file name)" })),
  title: Type.Optional(Type.String({ description: "a single file's title" })),
  url: Type.Optional(Type.String({ description: "a single file's link, cited with the answers" })),
  metadata: Type.Optional(
    Type.String({
      description:
        'a JSON object keyed by file name: `{"<file name>": {"title"?, "url"?, "external_id"?, …}}`',
    }),
  ),
});

/** /docs shows the upload's two bodies: the JSON batch and the multipart form with file pickers. */
function withMultipartForm({ schema, url }: { schema: FastifySchema; url: string }) {
  const content = {
    'application/json': { schema: schema.body },
    'multipart/form-data': { schema: MultipartUploadForm },
  };
  return { schema: { ...schema, body: { content } }, url };
}

const DocumentView = Type.Object({
  id: Type.Integer(),
  external_id: Type.String(),
  title: Type.String(),
  source: Type.String({ description: 'googledrive, wiki or upload' }),
  status: Type.String({
    description: 'queued | indexing | indexed | skipped | failed (its latest indexing)',
  }),
  reason: Type.Union([Type.String(), Type.Null()]),
  chunks: Type.Integer(),
  url: Type.Union([Type.String(), Type.Null()]),
  connector_id: Type.Union([Type.Integer(), Type.Null()]),
  mime_type: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.Union([Type.String(), Type.Null()]),
  updated_at: Type.Union([Type.String(), Type.Null()]),
  indexed_at: Type.Union([Type.String(), Type.Null()]),
});

export const documentRoutes: FastifyPluginAsyncTypebox<AppOptions> = async (app, { deps }) => {
  const { uploadMaxBytes, uploadMaxDocuments } = deps.config.indexing;
  await app.register(multipart, {
    // One byte over the request's limit, so a file that alone passes it is counted, not cut short.
    limits: { fileSize: uploadMaxBytes + 1, files: UPLOAD_MAX_FILES, fields: 10, fieldSize: 4096 },
  });

  const UploadBody = Type.Object(
    {
      documents: Type.Array(
        Type.Object({
          external_id: Type.String({ minLength: 1, maxLength: 512 }),
          title: Nullable.String({
            maxLength: 2048,
            description:
              "empty or missing: the text's own title, else its first heading or paragraph, else external_id",
          }),
          text: Type.String({ description: 'blank: the document is skipped with reason `empty`' }),
          url: Nullable.String({ maxLength: 4096 }),
          metadata: Type.Optional(Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()])),
        }),
        { minItems: 1, maxItems: uploadMaxDocuments },
      ),
    },
    { [ALSO_MULTIPART]: true },
  );

  app.post(
    '/v1/documents',
    {
      bodyLimit: uploadMaxBytes,
      config: { swaggerTransform: withMultipartForm },
      schema: {
        tags: ['documents'],
        summary: "Index documents into the caller's team: a JSON batch or uploaded files",
        description: `Either \`application/json\` \`{"documents":[{"external_id","title","text","url"?,"metadata"?}]}\` (1 to ${uploadMaxDocuments} documents, UPLOAD_MAX_DOCUMENTS), or \`multipart/form-data\` with up to ${UPLOAD_MAX_FILES} \`file\` parts (PDF, DOCX, Markdown, text, HTML, CSV, JSON) and, for a single file, an optional \`external_id\` field (default: the file name). Files of other types are refused with 415, and a request over UPLOAD_MAX_BYTES (all files together) with 413 as soon as it passes it; nothing of a refused request is stored. Posting an external_id again replaces that document. Answers 202 with the job to follow at \`GET /v1/documents/jobs/{result_id}\`.`,
        security: bearerSecurity,
        consumes: ['application/json', 'multipart/form-data'],
        body: UploadBody,
        response: withErrors({ 202: QueuedJobView, 413: ErrorDetail, 415: ErrorDetail }),
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      if (request.isMultipart()) {
        let files: Omit<UploadedFile, 'externalId'>[];
        let externalId: string | undefined;
        try {
          ({ files, externalId } = await readMultipartUpload(request.parts(), uploadMaxBytes));
        } catch (error) {
          // The refusal goes out at once. What the client still sends is read and dropped, never
          // kept (REQUEST_TIMEOUT_MS bounds how long), so it can read the answer instead of
          // meeting a broken pipe mid-upload.
          request.raw.unpipe();
          request.raw.resume();
          throw error;
        }
        const named = files.map((file) => ({
          ...file,
          externalId: files.length === 1 && externalId !== undefined ? externalId : file.fileName,
        }));
        return reply.code(202).send(await uploadFiles(deps, caller, named));
      }
      if (request.body === undefined || request.body === null) {
        throw ServiceError.validation([{ type: 'missing', loc: ['body'], msg: 'Field required' }]);
      }
      return reply.code(202).send(await uploadTextDocuments(deps, caller, request.body.documents));
    },
  );

  app.get(
    '/v1/documents',
    {
      schema: {
        tags: ['documents'],
        summary: "The team's documents from every source, newest first",
        description:
          'Paginated with `limit` (1–500, default 50) and `offset`; the total is in `total` and `X-Total-Count`.',
        security: bearerSecurity,
        querystring: DocumentsQuery,
        response: withErrors({
          200: Type.Object({
            documents: Type.Array(DocumentView),
            total: Type.Integer(),
            limit: Type.Integer(),
            offset: Type.Integer(),
          }),
        }),
      },
    },
    async (request, reply) => {
      const { source, ...paging } = request.query;
      const page = await listDocuments(deps, callerOf(request), {
        ...paging,
        source: source === undefined ? undefined : canonicalSource(source),
      });
      return reply.header('x-total-count', String(page.total)).send(page);
    },
  );

  app.delete(
    '/v1/documents/:document_id',
    {
      schema: {
        tags: ['documents'],
        summary: "Delete one of the team's documents with its chunks",
        security: bearerSecurity,
        params: Type.Object({ document_id: Type.String({ maxLength: 20 }) }),
        response: withErrors({ 204: Type.Null(), 404: ErrorDetail }),
      },
    },
    async (request, reply) => {
      await deleteDocument(deps, callerOf(request), request.params.document_id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/v1/documents/jobs/:result_id',
    {
      schema: {
        tags: ['documents'],
        summary: 'An upload job: its status, progress and per-document outcome',
        security: bearerSecurity,
        params: JobParams,
        response: withErrors({ 200: IndexJobView, 404: ErrorDetail }),
      },
    },
    async (request) => getIndexJob(deps, callerOf(request), request.params.result_id, 'upload'),
  );
};

/**
 * Reads a multipart upload part by part, counting bytes across all its files as they stream in:
 * 413 as soon as the total passes `maxBytes`, 415 for a file of a type no parser reads before
 * any of its bytes are read. Nothing is stored until the whole request is known to be good.
 */
async function readMultipartUpload(
  parts: AsyncIterableIterator<Multipart>,
  maxBytes: number,
): Promise<{ files: Omit<UploadedFile, 'externalId'>[]; externalId: string | undefined }> {
  const files: Omit<UploadedFile, 'externalId'>[] = [];
  let externalId: string | undefined;
  let total = 0;
  const tooLarge = () =>
    new ServiceError(
      'payload_too_large',
      `The upload is larger than ${maxBytes} bytes in all (UPLOAD_MAX_BYTES): send fewer or smaller files per request`,
    );
  for await (const part of parts) {
    if (part.type !== 'file') {
      if (part.fieldname === 'external_id' && typeof part.value === 'string' && part.value !== '') {
        externalId = part.value;
      }
      continue;
    }
    assertUploadableFile(part.filename, part.mimetype);
    const chunks: Buffer[] = [];
    for await (const chunk of part.file as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > maxBytes) throw tooLarge();
      chunks.push(chunk);
    }
    if (part.file.truncated) throw tooLarge();
    files.push({ fileName: part.filename, mimeType: part.mimetype, bytes: Buffer.concat(chunks) });
  }
  return { files, externalId };
}

import multipart, { type Multipart } from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest, FastifySchema } from 'fastify';
import { type Static, Type } from 'typebox';
import { ServiceError } from '../../../errors.js';
import { deleteDocument } from '../../../services/delete-document.js';
import { DOCUMENT_PAGE_MAX_CHUNKS, getDocument } from '../../../services/get-document.js';
import { getIndexJob } from '../../../services/get-index-job.js';
import { listDocuments } from '../../../services/list-documents.js';
import {
  assertUploadableFile,
  discardUploads,
  storeUpload,
  type UploadedFile,
  uploadFiles,
  uploadTextDocuments,
} from '../../../services/upload-documents.js';
import type { AppOptions } from '../../app-options.js';
import { callerOf } from '../../auth.js';
import { describeByteLimit } from '../../errors.js';
import { ALSO_MULTIPART, bearerSecurity, ErrorDetail, Nullable, withErrors } from '../../schema-types.js';
import { toValidationIssues } from '../../validation-errors.js';
import { IndexJobView, JobParams, QueuedJobView } from '../shared-schemas.js';
import { canonicalSource, SourceName } from '../source-filter.js';

/** Most files one multipart upload may carry. */
export const UPLOAD_MAX_FILES = 100;
/** Most form fields beside them (four are read; a few spare for clients that send more). */
const UPLOAD_MAX_FORM_FIELDS = 10;

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
        'a JSON object keyed by file name: `{"<file name>": {"title"?, "url"?, "external_id"?, "visibility"?, …}}`',
    }),
  ),
  visibility: Type.Optional(
    Type.Union([Type.Literal('team'), Type.Literal('private')], {
      description: 'who may open the files: `team` (default) or `private` (the uploader alone)',
    }),
  ),
});

/** Who may open an upload: the team (default), or its uploader alone. */
const Visibility = Type.Union([Type.Literal('team'), Type.Literal('private')], {
  description: '`team` (default): every member; `private`: the uploader alone',
});

/** /docs shows the upload's two bodies: the JSON batch and the multipart form with file pickers. */
function withMultipartForm({ schema, url }: { schema: FastifySchema; url: string }) {
  const content = {
    'application/json': { schema: schema.body },
    'multipart/form-data': { schema: MultipartUploadForm },
  };
  return { schema: { ...schema, body: { content } }, url };
}

const DocumentParams = Type.Object({ document_id: Type.String({ maxLength: 20 }) });

const DocumentView = Type.Object({
  id: Type.Integer(),
  external_id: Type.String(),
  title: Type.String({
    description:
      "the client's title, else the one the document gives itself (its title or first heading), else its file name",
    examples: ['API'],
  }),
  file_name: Type.Union([Type.String(), Type.Null()], {
    description:
      'the name the file was uploaded under, to tell apart documents whose titles are alike; null for JSON documents and for Drive files and wiki pages, whose title is their name',
    examples: ['pino-api.md'],
  }),
  source: Type.String({ description: 'googledrive, wiki or upload' }),
  status: Type.String({
    description:
      'What is stored: indexed (searchable, `chunks` of them), indexing (a big document being written), or skipped | failed when nothing is (`reason` says why). The latest job that looked at it is in `last_job`.',
  }),
  reason: Type.Union([Type.String(), Type.Null()]),
  chunks: Type.Integer(),
  last_job: Type.Union(
    [
      Type.Object({
        id: Type.Union([Type.String(), Type.Null()], { description: 'the job, at GET /v1/jobs/{id}' }),
        status: Type.String({
          description: 'indexed | skipped | failed: what that job did with this document',
        }),
        reason: Type.Union([Type.String(), Type.Null()], { description: 'unchanged, empty, parse_error, …' }),
        message: Type.Union([Type.String(), Type.Null()]),
        at: Type.Union([Type.String(), Type.Null()]),
      }),
      Type.Null(),
    ],
    { description: 'The outcome of the latest job that looked at this document; null before any' },
  ),
  url: Type.Union([Type.String(), Type.Null()]),
  connector_id: Type.Union([Type.Integer(), Type.Null()]),
  mime_type: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.Union([Type.String(), Type.Null()]),
  updated_at: Type.Union([Type.String(), Type.Null()]),
  indexed_at: Type.Union([Type.String(), Type.Null()]),
  access: Type.Object(
    {
      team: Type.Boolean({ description: 'every member of the team may open it' }),
      emails: Type.Array(Type.String(), { description: 'people who may open it (lower-cased e-mails)' }),
      domains: Type.Array(Type.String(), { description: 'members whose e-mail is in one of these domains' }),
      groups: Type.Array(Type.String(), {
        description: 'groups (by e-mail or name): they match members only through a known group membership',
      }),
    },
    {
      description:
        "who may open the document, as its source says (Drive permissions, Confluence restrictions, an upload's visibility)",
    },
  ),
  can_delete: Type.Boolean({
    description:
      "whether DELETE /v1/documents/{id} would succeed for the caller: their own documents always, others' only for the team's owner and admins",
    examples: [true],
  }),
});

export const documentRoutes: FastifyPluginAsyncTypebox<AppOptions> = async (app, { deps }) => {
  const { uploadMaxBytes, uploadMaxDocuments } = deps.config.indexing;
  await app.register(multipart, {
    // One byte over the request's limit, so a file that alone passes it is counted, not cut short.
    // `metadata` describes up to UPLOAD_MAX_FILES files: 256 KiB of form field.
    limits: {
      fileSize: uploadMaxBytes + 1,
      files: UPLOAD_MAX_FILES,
      fields: UPLOAD_MAX_FORM_FIELDS,
      fieldSize: 256 * 1024,
    },
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
          visibility: Type.Optional(Visibility),
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
      config: { swaggerTransform: withMultipartForm, bodyLimitSetting: 'UPLOAD_MAX_BYTES' },
      schema: {
        tags: ['documents'],
        summary: "Index documents into the caller's team: a JSON batch or uploaded files",
        description: `Either \`application/json\` \`{"documents":[{"external_id","title","text","url"?,"metadata"?,"visibility"?}]}\` (1 to ${uploadMaxDocuments} documents, UPLOAD_MAX_DOCUMENTS), or \`multipart/form-data\` with up to ${UPLOAD_MAX_FILES} \`file\` parts (PDF, DOCX, Markdown, text, HTML, CSV, JSON) and optional form fields: \`visibility\` (\`team\`, the default, or \`private\`: the uploader alone); for a single file \`external_id\` (default: the file name), \`title\` and \`url\`; for several, \`metadata\`, a JSON object keyed by file name (\`{"a.pdf": {"external_id"?, "title"?, "url"?, "metadata"?}}\`). A JSON document's empty \`title\` falls back to its own heading or first paragraph, a blank \`text\` is skipped as \`empty\`. Files of other types are refused with 415, and a request over UPLOAD_MAX_BYTES (all files together) with 413 as soon as it passes it; nothing of a refused request is stored. Posting an external_id again replaces that document. Answers 202 with the job to follow at \`GET /v1/documents/jobs/{result_id}\`.`,
        security: bearerSecurity,
        consumes: ['application/json', 'multipart/form-data'],
        body: UploadBody,
        response: withErrors({ 202: QueuedJobView, 413: ErrorDetail, 415: ErrorDetail }),
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      if (request.isMultipart()) {
        let received: Awaited<ReturnType<typeof readMultipartUpload>>;
        try {
          received = await readMultipartUpload(deps, request.parts(), uploadMaxBytes);
        } catch (error) {
          // The refusal goes out at once. What the client still sends is read and dropped, never
          // kept (bounded as unread-body.ts says), so it can read the answer instead of meeting a
          // broken pipe mid-upload.
          request.raw.unpipe();
          request.raw.resume();
          throw error;
        }
        let described: UploadedFile[];
        try {
          described = describeFiles(request, received.files, received.fields);
        } catch (error) {
          await discardUploads(
            deps,
            received.files.map((file) => file.stored),
          );
          throw error;
        }
        return reply.code(202).send(await uploadFiles(deps, caller, described));
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
          'Paginated with `limit` (1–500, default 50) and `offset`; the total is in `total` and `X-Total-Count`. Each document has its `title` and, when it came as a file, the `file_name` it was uploaded under, and says whether the caller may delete it (`can_delete`).',
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

  app.get(
    '/v1/documents/:document_id',
    {
      schema: {
        tags: ['documents'],
        summary: "One of the team's documents with its stored text, chunk by chunk",
        description: `\`document\` as GET /v1/documents lists it; \`chunks\` in position order, the first ${DOCUMENT_PAGE_MAX_CHUNKS.toLocaleString('en')} at most (\`document.chunks\` says how many are stored). A chunk's \`chunk_id\` is the one search results name. Another team's document is a 404.`,
        security: bearerSecurity,
        params: DocumentParams,
        response: withErrors({
          200: Type.Object({
            document: DocumentView,
            chunks: Type.Array(
              Type.Object({
                chunk_id: Type.Integer(),
                position: Type.Integer(),
                text: Type.String(),
                heading_path: Type.Array(Type.String(), {
                  description: 'the headings the chunk sits under, outermost first',
                }),
              }),
            ),
          }),
          404: ErrorDetail,
        }),
      },
    },
    async (request) => getDocument(deps, callerOf(request), request.params.document_id),
  );

  app.delete(
    '/v1/documents/:document_id',
    {
      schema: {
        tags: ['documents'],
        summary: "Delete one of the team's documents with its chunks",
        description:
          "A member deletes the documents they brought in; the team's owner and admins any they may open. The listing's `can_delete` says which, by the same rule. Another's document a member may open is a 403; one the caller may not open, a 404.",
        security: bearerSecurity,
        params: DocumentParams,
        response: withErrors({ 204: Type.Null(), 403: ErrorDetail, 404: ErrorDetail }),
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

/** The form fields a multipart upload may carry beside its files. */
interface UploadFormFields {
  externalId?: string;
  title?: string;
  url?: string;
  /** Per file name: `title`, `url`, `external_id` and `metadata` for that file. */
  perFile?: Record<string, unknown>;
  /** Every file's, unless its `metadata` entry says otherwise (checked with the entries). */
  visibility?: string;
}

/**
 * Reads a multipart upload part by part, streaming each file into the upload store while counting
 * bytes across all its files: 413 as soon as the total passes `maxBytes`, 415 for a file of a type
 * no parser reads before any of its bytes are read. A refused request keeps nothing stored.
 */
async function readMultipartUpload(
  deps: AppOptions['deps'],
  parts: AsyncIterableIterator<Multipart>,
  maxBytes: number,
): Promise<{ files: Omit<UploadedFile, 'externalId'>[]; fields: UploadFormFields }> {
  const files: Omit<UploadedFile, 'externalId'>[] = [];
  const fields: UploadFormFields = {};
  let total = 0;
  const tooLarge = () =>
    new ServiceError(
      'payload_too_large',
      files.length === 0
        ? `The file is larger than the ${describeByteLimit(maxBytes)} limit (UPLOAD_MAX_BYTES)`
        : `The files are larger than the ${describeByteLimit(maxBytes)} limit (UPLOAD_MAX_BYTES) together: send fewer or smaller files per request`,
    );
  try {
    for await (const part of parts) {
      if (part.type !== 'file') {
        readFormField(fields, part.fieldname, typeof part.value === 'string' ? part.value : '');
        continue;
      }
      const mimeType = assertUploadableFile(part.filename, part.mimetype);
      const stored = await storeUpload(deps, part.file, (bytes) => {
        total += bytes;
        if (total > maxBytes) throw tooLarge();
      });
      files.push({ fileName: part.filename, mimeType, stored });
      if (part.file.truncated) throw tooLarge();
    }
  } catch (error) {
    await discardUploads(
      deps,
      files.map((file) => file.stored),
    ).catch(() => {});
    const { code } = error as { code?: unknown };
    if (code === 'FST_FILES_LIMIT') {
      throw new ServiceError('payload_too_large', `At most ${UPLOAD_MAX_FILES} files per request`);
    }
    if (code === 'FST_FIELDS_LIMIT') {
      throw new ServiceError(
        'payload_too_large',
        `At most ${UPLOAD_MAX_FORM_FIELDS} form fields per request (external_id, title, url, metadata)`,
      );
    }
    throw error;
  }
  return { files, fields };
}

function readFormField(fields: UploadFormFields, name: string, value: string): void {
  if (value === '') return;
  if (name === 'external_id') fields.externalId = value;
  else if (name === 'title') fields.title = value;
  else if (name === 'url') fields.url = value;
  else if (name === 'visibility') fields.visibility = value;
  else if (name === 'metadata') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      parsed = undefined;
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw ServiceError.validation([
        {
          type: 'json_invalid',
          loc: ['body', 'metadata'],
          msg: 'metadata must be a JSON object keyed by file name: {"a.pdf": {"title": "…", "url": "…", "metadata": {…}}}',
        },
      ]);
    }
    fields.perFile = parsed as Record<string, unknown>;
  }
}

/** One file's entry in the `metadata` form field; null is as good as absent. */
const FileFormEntry = Type.Object({
  external_id: Nullable.String(),
  title: Nullable.String(),
  url: Nullable.String(),
  metadata: Type.Optional(Type.Object({}, { additionalProperties: true })),
  visibility: Type.Optional(Visibility),
});
const PerFileForm = Type.Object({
  metadata: Type.Record(Type.String(), FileFormEntry),
  visibility: Type.Optional(Visibility),
});

/**
 * Each file's external_id, title, url and metadata: a `metadata` form entry for its name, else (for
 * a single file) the request's own `external_id`, `title` and `url` fields, else its file name.
 * The entries are checked by the app's validator, so a wrong one is the usual 422 at its `loc`.
 */
function describeFiles(
  request: FastifyRequest,
  files: readonly Omit<UploadedFile, 'externalId'>[],
  fields: UploadFormFields,
): UploadedFile[] {
  const validate = request.compileValidationSchema(PerFileForm);
  const form = {
    metadata: fields.perFile ?? {},
    ...(fields.visibility === undefined ? {} : { visibility: fields.visibility }),
  };
  if (!validate(form)) throw ServiceError.validation(toValidationIssues('body', validate.errors ?? []));
  const entries = form.metadata as Record<string, Static<typeof FileFormEntry>>;
  const single = files.length === 1;
  return files.map((file) => {
    const entry = entries[file.fileName] ?? {};
    const title = entry.title ?? (single ? fields.title : undefined);
    const url = entry.url ?? (single ? fields.url : undefined);
    const visibility = entry.visibility ?? (form.visibility as UploadedFile['visibility']);
    return {
      ...file,
      externalId: entry.external_id ?? (single ? fields.externalId : undefined) ?? file.fileName,
      ...(title === undefined ? {} : { title }),
      ...(url === undefined ? {} : { url }),
      ...(entry.metadata === undefined ? {} : { metadata: entry.metadata as Record<string, unknown> }),
      ...(visibility === undefined ? {} : { visibility }),
    };
  });
}

import { Type } from 'typebox';
import { SAFE_INTEGER_RANGE } from '../schema-types.js';

/**
 * The `user_context` a client sends back in drive and chat requests (spec 2.1): every field
 * required, as the original service had it. The server checks it against the caller; it never
 * decides whose data is read.
 */
export const UserContextBody = Type.Object({
  id: Type.Integer(SAFE_INTEGER_RANGE),
  email: Type.String({ maxLength: 320 }),
  updated_at: Type.String({ maxLength: 100 }),
  is_active: Type.Boolean(),
  team_id: Type.Integer(SAFE_INTEGER_RANGE),
  created_at: Type.String({ format: 'date-time' }),
  connectors: Type.Array(
    Type.Object({
      name: Type.String({ maxLength: 100 }),
      id: Type.Array(Type.Integer(SAFE_INTEGER_RANGE), { maxItems: 1000 }),
    }),
    { maxItems: 100 },
  ),
  vector_store: Type.Object({
    id: Type.Integer(SAFE_INTEGER_RANGE),
    index_name: Type.String({ maxLength: 500 }),
    environment: Type.String({ maxLength: 100 }),
    namespaces: Type.Array(Type.String({ maxLength: 500 }), { maxItems: 100 }),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
    provider: Type.String({ maxLength: 100 }),
  }),
});

/** What every request that starts indexing answers (202). */
export const QueuedJobView = Type.Object({
  result_id: Type.String({ format: 'uuid', description: 'the job id: GET its status' }),
  result_ready: Type.Boolean(),
});

const FileStatus = Type.Object({
  id: Type.String({ description: "the source's id: Drive file id, wiki page id, upload external_id" }),
  name: Type.String(),
  status: Type.String({ description: 'queued | indexing | indexed | skipped | failed' }),
  reason: Type.Union([Type.String(), Type.Null()], {
    description:
      'unsupported_type, too_large, permission_denied, not_found, parse_error, parse_timeout, unsafe_archive, rate_limited, unchanged, empty, source_unavailable, internal_error',
  }),
  chunks: Type.Integer(),
  message: Type.Union([Type.String(), Type.Null()]),
  document_id: Type.Union([Type.Integer(), Type.Null()]),
});

/** An index job with its per-file status. */
export const IndexJobView = Type.Object({
  result_id: Type.String(),
  result_ready: Type.Boolean({ description: 'true once the job completed or failed' }),
  status: Type.String({ description: 'queued | running | completed | failed' }),
  kind: Type.String({ description: 'googledrive | wiki | upload' }),
  connector_id: Type.Union([Type.Integer(), Type.Null()]),
  progress: Type.Object({
    done: Type.Integer(),
    total: Type.Integer(),
    indexed: Type.Integer(),
    skipped: Type.Integer(),
    failed: Type.Integer(),
  }),
  error: Type.Union([Type.String(), Type.Null()]),
  files: Type.Array(FileStatus),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  finished_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

export const JobParams = Type.Object({ result_id: Type.String({ maxLength: 100 }) });

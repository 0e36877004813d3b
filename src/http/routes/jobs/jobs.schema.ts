import { Type } from 'typebox';
import { IndexJobView } from '../shared-schemas.js';

export const JobsQuery = Type.Object({
  status: Type.Optional(
    Type.Unsafe<'active' | 'finished'>({
      type: 'string',
      enum: ['active', 'finished'],
      description: '`active`: queued or running; `finished`: completed or failed; absent: every job',
    }),
  ),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  offset: Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 0 }),
});

const { files, progress, ...common } = IndexJobView.properties;

/** A job as GET /v1/jobs/{result_id} shows it, with its first failures instead of every file. */
export const IndexJobListEntry = Type.Object({
  ...common,
  progress: Type.Object({
    ...progress.properties,
    pending: Type.Integer({ description: 'files not done yet (queued or being indexed): total − done' }),
  }),
  first_file_name: Type.Union([Type.String(), Type.Null()], {
    description:
      "the name of the job's first file (a one-file upload's only one), to tell jobs apart; null before the job lists any",
  }),
  failures: Type.Array(files.items, {
    description: 'the first 5 failed files in the order the job lists them; progress.failed counts them all',
  }),
});

const EXAMPLE = {
  jobs: [
    {
      result_id: '7d0c5a52-2f4e-4a4b-9f57-1f0d2a9f3c11',
      result_ready: false,
      status: 'running',
      kind: 'googledrive',
      connector_id: 3,
      progress: { done: 40, total: 120, indexed: 38, skipped: 1, failed: 1, pending: 80 },
      error: null,
      first_file_name: 'Roadmap 2027',
      failures: [
        {
          id: '1AbCdEfGhIjKlMnOp',
          name: 'Scanned contract.pdf',
          status: 'failed',
          reason: 'parse_error',
          chunks: 0,
          message: 'The file holds no text to index',
          document_id: null,
        },
      ],
      created_at: '2026-11-24T10:42:05.120Z',
      updated_at: '2026-11-24T10:42:06.004Z',
      finished_at: null,
    },
    {
      result_id: 'bc29c66d-a706-4362-980b-d2389fadb3ff',
      result_ready: true,
      status: 'completed',
      kind: 'upload',
      connector_id: null,
      progress: { done: 2, total: 2, indexed: 2, skipped: 0, failed: 0, pending: 0 },
      error: null,
      first_file_name: 'holiday-policy.md',
      failures: [],
      created_at: '2026-11-24T09:15:00.000Z',
      updated_at: '2026-11-24T09:15:02.310Z',
      finished_at: '2026-11-24T09:15:02.310Z',
    },
  ],
};

export const IndexJobList = Type.Object(
  { jobs: Type.Array(IndexJobListEntry) },
  { examples: [EXAMPLE], description: 'newest first' },
);

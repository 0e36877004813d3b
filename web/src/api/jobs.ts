import { requestJson } from './http';

/** One failed file of a job, as GET /v1/jobs lists it. */
export interface JobFailure {
  /** The source's id: Drive file id, wiki page id, upload external_id. */
  id: string;
  name: string;
  status: string;
  /** A FileReason code (parse_error, too_large…), null when the service gave none. */
  reason: string | null;
  message: string | null;
  chunks: number;
  document_id: number | null;
}

export interface JobProgress {
  done: number;
  total: number;
  indexed: number;
  skipped: number;
  failed: number;
  /** Files not done yet (queued or being indexed). */
  pending: number;
}

/** An index job as GET /v1/jobs lists it. */
export interface ListedJob {
  result_id: string;
  result_ready: boolean;
  /** queued, running, completed or failed. */
  status: string;
  /** googledrive, wiki or upload. */
  kind: string;
  connector_id: number | null;
  progress: JobProgress;
  error: string | null;
  /** The job's first file (a one-file upload's only one); null before it lists any. */
  first_file_name: string | null;
  /** Its first few failed files; `progress.failed` counts them all. */
  failures: JobFailure[];
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

/** The most jobs one request lists (the API's limit). */
export const JOBS_LIMIT_MAX = 100;

export interface JobsQuery {
  /** `active`: queued or running; `finished`: completed or failed; absent: every job. */
  status?: 'active' | 'finished';
  limit?: number;
  offset?: number;
  signal?: AbortSignal;
}

/** GET /v1/jobs: a page of the team's index jobs, newest first. */
export async function listJobs({ status, limit, offset, signal }: JobsQuery = {}): Promise<ListedJob[]> {
  const page = await requestJson<{ jobs: ListedJob[] }>('GET', '/v1/jobs', {
    query: { status, limit, offset },
    ...(signal === undefined ? {} : { signal }),
  });
  return page.jobs;
}

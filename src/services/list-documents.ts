import type { Caller } from '../caller.js';
import type { ServiceDependencies } from './dependencies.js';

/** The caller's team's documents, newest first, one page at a time. */
export async function listDocuments(
  deps: ServiceDependencies,
  caller: Caller,
  page: { limit: number; offset: number; source?: string | undefined },
) {
  const source = page.source ?? null;
  const [{ rows }, counted] = await Promise.all([
    deps.sql.executeSql(
      `SELECT id, external_id, title, source, status, reason, chunk_count, url, connector_id, mime_type,
         created_at, updated_at, indexed_at, last_job_id, last_job_status, last_job_reason, last_job_message,
         last_job_at
       FROM documents WHERE team_id = $1 AND ($2::text IS NULL OR source = $2)
       ORDER BY id DESC LIMIT $3 OFFSET $4`,
      [caller.teamId, source, page.limit, page.offset],
    ),
    deps.sql.executeSql(
      'SELECT count(*) AS total FROM documents WHERE team_id = $1 AND ($2::text IS NULL OR source = $2)',
      [caller.teamId, source],
    ),
  ]);
  const iso = (value: unknown) =>
    value === null || value === undefined ? null : new Date(value as string | Date).toISOString();
  return {
    total: Number(counted.rows[0]?.total ?? 0),
    limit: page.limit,
    offset: page.offset,
    documents: rows.map((row) => ({
      id: Number(row.id),
      external_id: String(row.external_id),
      title: String(row.title),
      source: String(row.source),
      status: String(row.status),
      reason: row.reason ?? null,
      chunks: Number(row.chunk_count),
      url: row.url ?? null,
      connector_id: row.connector_id === null ? null : Number(row.connector_id),
      mime_type: row.mime_type ?? null,
      created_at: iso(row.created_at),
      updated_at: iso(row.updated_at),
      indexed_at: iso(row.indexed_at),
      last_job:
        row.last_job_status === null || row.last_job_status === undefined
          ? null
          : {
              id: row.last_job_id === null ? null : String(row.last_job_id),
              status: String(row.last_job_status),
              reason: row.last_job_reason ?? null,
              message: row.last_job_message ?? null,
              at: iso(row.last_job_at),
            },
    })),
  };
}

import type { IndexJobItemRow, IndexJobRow, JobProgress } from '../db/repositories/index-jobs.js';
import type { TeamRow, UserRow, VectorStoreRow } from '../db/repositories/users.js';

/** Public JSON shapes of stored records: no secret column ever passes through here. */
export function userView(user: UserRow) {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    username: user.username,
    is_active: user.isActive,
    team_id: user.teamId,
    created_at: user.createdAt.toISOString(),
    updated_at: user.updatedAt.toISOString(),
  };
}

export function teamView(team: TeamRow) {
  return {
    id: team.id,
    name: team.name,
    owner_user_id: team.ownerUserId,
    created_at: team.createdAt.toISOString(),
    updated_at: team.updatedAt.toISOString(),
  };
}

export function vectorStoreView(store: VectorStoreRow) {
  return {
    id: store.id,
    index_name: store.indexName,
    environment: store.environment,
    namespaces: store.namespaces,
    created_at: store.createdAt.toISOString(),
    updated_at: store.updatedAt.toISOString(),
    provider: store.provider,
  };
}

/**
 * An index job as GET /v1/jobs/{result_id} answers it, without its files: the fields a job's
 * status and a listing of jobs share (`progress` as the caller counted it).
 */
export function indexJobView<P extends JobProgress>(job: IndexJobRow, progress: P) {
  return {
    result_id: job.id,
    result_ready: job.status === 'completed' || job.status === 'failed',
    status: job.status,
    kind: job.kind,
    connector_id: job.connectorId,
    progress,
    error: job.error,
    created_at: job.createdAt.toISOString(),
    updated_at: job.updatedAt.toISOString(),
    finished_at: job.finishedAt?.toISOString() ?? null,
  };
}

/** One file of an index job, with its outcome. */
export function indexJobFileView(item: IndexJobItemRow) {
  return {
    id: item.externalId,
    name: item.name,
    status: item.status,
    reason: item.reason,
    chunks: item.chunks,
    message: item.message,
    document_id: item.documentId,
  };
}

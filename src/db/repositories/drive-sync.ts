import type { SqlExecutor } from '../sql-connection.js';

/** bigint-like values, which drivers may answer as text. */
type Integer = number | string;

/** A Drive connector due a re-sync, and its team. */
export interface DueDriveConnector {
  readonly id: number;
  readonly teamId: number;
}

/**
 * Up to `limit` Drive connectors whose last sync is before `cutoff`, least recently synced first.
 * One never synced counts only once it holds documents and no job of it was created after
 * `cutoff`: its first index job (which marks it synced when it completes) may still be running.
 * `connectors.last_synced_at` is set by every completed job of the connector, a user's own
 * indexing included, and by `claimDriveConnectorSync`.
 */
export async function listDriveConnectorsDueSync(
  db: SqlExecutor,
  cutoff: Date,
  limit = 100,
): Promise<DueDriveConnector[]> {
  const { rows } = await db.executeSql<{ id: Integer; team_id: Integer }>(
    `SELECT c.id, c.team_id FROM connectors c
     WHERE c.slug = 'googledrive'
       AND (c.last_synced_at < $1::timestamptz
         OR (c.last_synced_at IS NULL
           AND EXISTS (SELECT 1 FROM documents d WHERE d.connector_id = c.id)
           AND NOT EXISTS (SELECT 1 FROM index_jobs j WHERE j.connector_id = c.id AND j.created_at > $1::timestamptz)))
     ORDER BY c.last_synced_at NULLS FIRST, c.id
     LIMIT $2`,
    [cutoff.toISOString(), limit],
  );
  return rows.map((row) => ({ id: Number(row.id), teamId: Number(row.team_id) }));
}

/**
 * Marks a Drive connector synced at `now` if it still is due (last synced before `cutoff`, or
 * never): true for the one caller that got it. Claiming before the work means two workers never
 * re-sync the same connector in one round, and a round whose refreshes all fail is not retried
 * every minute.
 */
export async function claimDriveConnectorSync(
  db: SqlExecutor,
  connectorId: number,
  cutoff: Date,
  now: Date,
): Promise<boolean> {
  const { rows } = await db.executeSql<{ id: Integer }>(
    `UPDATE connectors SET last_synced_at = $3::timestamptz, updated_at = now()
     WHERE id = $1 AND slug = 'googledrive' AND (last_synced_at IS NULL OR last_synced_at < $2::timestamptz)
     RETURNING id`,
    [connectorId, cutoff.toISOString(), now.toISOString()],
  );
  return rows.length > 0;
}

/** A member who indexed Drive files into a connector, with the Google refresh token they registered. */
export interface DriveSyncUser {
  readonly userId: number;
  readonly accountId: number;
  /** Ciphertext (SecretBox); never log it, even sealed. */
  readonly refreshTokenSealed: string;
}

/**
 * The active members of `teamId` who asked for Drive index jobs on the connector and have a
 * stored refresh token of one of `providers`' accounts (the most recently updated such account
 * when they have several), by user id.
 */
export async function listDriveSyncUsers(
  db: SqlExecutor,
  connectorId: number,
  teamId: number,
  providers: readonly string[],
): Promise<DriveSyncUser[]> {
  const { rows } = await db.executeSql<{
    user_id: Integer;
    account_id: Integer;
    refresh_token_sealed: string;
  }>(
    `SELECT DISTINCT ON (u.id) u.id AS user_id, a.id AS account_id, a.refresh_token_sealed
     FROM users u
     JOIN accounts a ON a.user_id = u.id AND a.provider = ANY($3::text[]) AND a.refresh_token_sealed IS NOT NULL
     WHERE u.team_id = $2 AND u.is_active
       AND EXISTS (SELECT 1 FROM index_jobs j
         WHERE j.connector_id = $1 AND j.kind = 'googledrive' AND j.requested_by = u.id)
     ORDER BY u.id, a.updated_at DESC, a.id DESC`,
    [connectorId, teamId, providers],
  );
  return rows.map((row) => ({
    userId: Number(row.user_id),
    accountId: Number(row.account_id),
    refreshTokenSealed: String(row.refresh_token_sealed),
  }));
}

/** A Drive entry (file or folder) a user asked to index, as the request named it. */
export interface RequestedDriveEntry {
  readonly id: string;
  readonly name: string;
  readonly type: string;
  /** The picked entry's link and service id, when an item of a past job still holds them. */
  readonly url: string | null;
  readonly serviceId: string | null;
}

/**
 * The union of the Drive entries a user asked to index on a connector (`index_jobs.request.files`
 * of their `googledrive` jobs, the latest request's name and type winning), by id. Only entries
 * that still bring documents in are kept: a file whose document is still stored in the connector
 * (whatever its status), or a folder some stored document was found in. So a document a member
 * deleted is not brought back by the next sync, while files added to a picked folder are found.
 */
export async function listRequestedDriveEntries(
  db: SqlExecutor,
  connectorId: number,
  teamId: number,
  userId: number,
): Promise<RequestedDriveEntry[]> {
  const { rows } = await db.executeSql<{
    id: string;
    name: string | null;
    type: string | null;
    url: string | null;
    service_id: string | null;
  }>(
    `WITH user_jobs AS (
       SELECT j.id, j.created_at, j.request FROM index_jobs j
       WHERE j.connector_id = $1 AND j.kind = 'googledrive' AND j.requested_by = $3
     ), requested AS (
       SELECT DISTINCT ON (f.value->>'id') f.value->>'id' AS id, f.value->>'name' AS name,
         f.value->>'type' AS type
       FROM user_jobs j
       CROSS JOIN LATERAL jsonb_array_elements(
         CASE WHEN jsonb_typeof(j.request->'files') = 'array' THEN j.request->'files' ELSE '[]'::jsonb END
       ) AS f(value)
       WHERE jsonb_typeof(f.value->'id') = 'string'
       ORDER BY f.value->>'id', j.created_at DESC
     ), origins AS (
       SELECT DISTINCT d.origin_id FROM documents d WHERE d.connector_id = $1 AND d.origin_id IS NOT NULL
     )
     SELECT r.id, r.name, r.type, picked.requested->>'url' AS url, picked.requested->>'service_id' AS service_id
     FROM requested r
     LEFT JOIN LATERAL (
       SELECT i.payload->'requested' AS requested FROM user_jobs j
       JOIN index_job_items i ON i.job_id = j.id AND i.external_id = r.id
       WHERE jsonb_typeof(i.payload->'requested') = 'object'
       ORDER BY j.created_at DESC LIMIT 1
     ) AS picked ON true
     WHERE EXISTS (SELECT 1 FROM documents d
         WHERE d.team_id = $2 AND d.source = 'googledrive' AND d.external_id = r.id AND d.connector_id = $1)
       OR r.id IN (SELECT origin_id FROM origins)
     ORDER BY r.id`,
    [connectorId, teamId, userId],
  );
  return rows.map((row) => ({
    id: String(row.id),
    name: row.name ?? String(row.id),
    type: row.type ?? 'file',
    url: row.url ?? null,
    serviceId: row.service_id ?? null,
  }));
}

/** Stores the refresh token a provider rotated in (sealed); the old one is dead. */
export async function replaceAccountRefreshToken(
  db: SqlExecutor,
  accountId: number,
  refreshTokenSealed: string,
): Promise<void> {
  await db.executeSql('UPDATE accounts SET refresh_token_sealed = $2, updated_at = now() WHERE id = $1', [
    accountId,
    refreshTokenSealed,
  ]);
}

import type { Caller } from '../caller.js';
import { ServiceError } from '../errors.js';
import type { ServiceDependencies } from './dependencies.js';
import { canonicalSlug } from './get-connector.js';
import { type QueuedIndexJob, queueIndexJob } from './queue-index-job.js';
import { parseSerialId } from './serial-id.js';

export type { QueuedIndexJob };

/**
 * Queues a sync of the team's wiki connector: changed pages are fetched again, removed ones
 * deleted. While a sync of that connector is queued or running, that one is answered.
 */
export async function queueWikiSync(
  deps: ServiceDependencies,
  caller: Pick<Caller, 'teamId'> & { readonly userId: number | null },
  connectorId: number,
): Promise<QueuedIndexJob> {
  return queueIndexJob(deps, {
    teamId: caller.teamId,
    connectorId,
    kind: 'wiki',
    requestedBy: caller.userId,
    request: { connector_id: connectorId },
    requestHash: `wiki-sync:${connectorId}`,
    secretsSealed: null,
    items: [],
  });
}

/** `POST /v1/connectors/wiki/{id}/sync`: the caller's team's wiki connector only. */
export async function syncWikiConnector(
  deps: ServiceDependencies,
  caller: Caller,
  slug: string,
  id: string,
): Promise<QueuedIndexJob> {
  const connectorId = parseSerialId(id);
  if (canonicalSlug(slug) !== 'wiki' || connectorId === undefined) {
    throw new ServiceError('not_found', 'Connector not found');
  }
  const { rows } = await deps.sql.executeSql(
    `SELECT id FROM connectors WHERE id = $1 AND team_id = $2 AND slug = 'wiki'`,
    [connectorId, caller.teamId],
  );
  if (rows.length === 0) throw new ServiceError('not_found', 'Connector not found');
  return queueWikiSync(deps, caller, connectorId);
}

/**
 * Queues a sync of every wiki connector not synced for `intervalMinutes` (the scheduler of the
 * worker role calls it every minute); answers how many were queued.
 */
export async function queueDueWikiSyncs(deps: ServiceDependencies, intervalMinutes: number): Promise<number> {
  const { rows } = await deps.sql.executeSql(
    `SELECT c.id, c.team_id FROM connectors c
     WHERE c.slug = 'wiki' AND c.secrets_sealed IS NOT NULL
       AND COALESCE(c.last_synced_at, c.updated_at) < now() - $1::int * interval '1 minute'
       AND NOT EXISTS (SELECT 1 FROM index_jobs j WHERE j.connector_id = c.id
         AND (j.status IN ('queued', 'running') OR j.created_at > now() - $1::int * interval '1 minute'))
     ORDER BY c.id LIMIT 100`,
    [intervalMinutes],
  );
  for (const row of rows) {
    await queueWikiSync(deps, { teamId: Number(row.team_id), userId: null }, Number(row.id));
  }
  return rows.length;
}

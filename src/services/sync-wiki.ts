import { type Caller, managesTeam } from '../caller.js';
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

/** `POST /v1/connectors/wiki/{id}/sync`: the caller's team's wiki connector only; owners and admins. */
export async function syncWikiConnector(
  deps: ServiceDependencies,
  caller: Caller,
  slug: string,
  id: string,
): Promise<QueuedIndexJob> {
  if (!managesTeam(caller)) {
    throw new ServiceError(
      'forbidden',
      "Only the team's owner and admins may sync the Confluence connection",
    );
  }
  const connectorId = parseSerialId(id);
  if (canonicalSlug(slug) !== 'wiki' || connectorId === undefined) {
    throw new ServiceError('not_found', 'Connector not found');
  }
  if (!(await deps.data.connectors.teamWikiConnectorExists(caller.teamId, connectorId)))
    throw new ServiceError('not_found', 'Connector not found');
  return queueWikiSync(deps, caller, connectorId);
}

/**
 * Queues a sync of every wiki connector not synced for `intervalMinutes` (the scheduler of the
 * worker role calls it every minute); answers how many were queued.
 */
export async function queueDueWikiSyncs(deps: ServiceDependencies, intervalMinutes: number): Promise<number> {
  const due = await deps.data.connectors.listWikiConnectorsDueSync(intervalMinutes);
  for (const connector of due) {
    await queueWikiSync(deps, { teamId: connector.teamId, userId: null }, connector.id);
  }
  return due.length;
}

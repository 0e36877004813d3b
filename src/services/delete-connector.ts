import { type Caller, managesTeam } from '../caller.js';
import { ServiceError } from '../errors.js';
import type { ServiceDependencies } from './dependencies.js';
import { canonicalSlug } from './get-connector.js';
import { parseSerialId } from './serial-id.js';

/**
 * Deletes one of the team's connectors with all its documents, chunks and vectors (cascading),
 * and cancels its unfinished index jobs, dropping their stored tokens. Owners and admins only.
 */
export async function deleteConnector(
  deps: ServiceDependencies,
  caller: Caller,
  slug: string,
  id: string,
): Promise<void> {
  // Every member's documents from that source go with it.
  if (!managesTeam(caller)) {
    throw new ServiceError('forbidden', "Only the team's owner and admins may remove a connection");
  }
  const canonical = canonicalSlug(slug);
  const connectorId = parseSerialId(id);
  if (canonical === undefined || connectorId === undefined) {
    throw new ServiceError('not_found', 'Connector not found');
  }
  const deleted = await deps.data.transaction(async (transaction) => {
    await transaction.indexJobs.cancelConnectorJobs(caller.teamId, connectorId, 'The connector was deleted');
    return transaction.connectors.deleteTeamConnector(caller.teamId, canonical, connectorId);
  });
  if (!deleted) throw new ServiceError('not_found', 'Connector not found');
  // No process finds its documents once the client hears it is gone.
  await deps.writesSearchable();
}

import type { Caller } from '../caller.js';
import { ServiceError } from '../errors.js';
import type { ServiceDependencies } from './dependencies.js';
import { canonicalSlug } from './get-connector.js';
import { parseSerialId } from './serial-id.js';

/**
 * Deletes one of the team's connectors with all its documents, chunks and vectors (cascading),
 * and cancels its unfinished index jobs, dropping their stored tokens.
 */
export async function deleteConnector(
  deps: ServiceDependencies,
  caller: Caller,
  slug: string,
  id: string,
): Promise<void> {
  const canonical = canonicalSlug(slug);
  const connectorId = parseSerialId(id);
  if (canonical === undefined || connectorId === undefined) {
    throw new ServiceError('not_found', 'Connector not found');
  }
  const deleted = await deps.sql.transaction(async (transaction) => {
    await transaction.executeSql(
      `UPDATE index_jobs SET status = 'failed', error = 'The connector was deleted', secrets_sealed = NULL,
         finished_at = now(), updated_at = now()
       WHERE connector_id = $1 AND team_id = $2 AND status IN ('queued', 'running')`,
      [connectorId, caller.teamId],
    );
    const { rows } = await transaction.executeSql(
      'DELETE FROM connectors WHERE id = $1 AND team_id = $2 AND slug = $3 RETURNING id',
      [connectorId, caller.teamId, canonical],
    );
    return rows.length > 0;
  });
  if (!deleted) throw new ServiceError('not_found', 'Connector not found');
}

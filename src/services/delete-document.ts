import type { Caller } from '../db/repositories/users.js';
import { ServiceError } from '../errors.js';
import type { ServiceDependencies } from './dependencies.js';

/** Deletes one of the team's documents with its chunks and vectors. */
export async function deleteDocument(deps: ServiceDependencies, caller: Caller, id: string): Promise<void> {
  if (!/^[1-9]\d{0,9}$/.test(id) || Number(id) > 2_147_483_647) {
    throw new ServiceError('not_found', 'Document not found');
  }
  const { rows } = await deps.sql.executeSql(
    'DELETE FROM documents WHERE id = $1 AND team_id = $2 RETURNING id',
    [Number(id), caller.teamId],
  );
  if (rows.length === 0) throw new ServiceError('not_found', 'Document not found');
}

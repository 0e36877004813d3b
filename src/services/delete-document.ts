import type { Caller } from '../caller.js';
import { deleteTeamDocument } from '../db/repositories/documents.js';
import { ServiceError } from '../errors.js';
import type { ServiceDependencies } from './dependencies.js';
import { parseSerialId } from './serial-id.js';

/** Deletes one of the team's documents with its chunks and vectors. */
export async function deleteDocument(deps: ServiceDependencies, caller: Caller, id: string): Promise<void> {
  const documentId = parseSerialId(id);
  if (documentId === undefined) throw new ServiceError('not_found', 'Document not found');
  const chunks = await deleteTeamDocument(deps.sql, caller.teamId, documentId);
  if (chunks === undefined) throw new ServiceError('not_found', 'Document not found');
  deps.storage.noteDeleted(chunks);
}

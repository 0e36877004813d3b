import { memberReader } from '../access.js';
import { type Caller, managesTeam } from '../caller.js';
import { ServiceError } from '../errors.js';
import type { ServiceDependencies } from './dependencies.js';
import { parseSerialId } from './serial-id.js';

/**
 * Deletes one of the team's documents with its chunks and vectors. Owners and admins delete any
 * they may open; a member only those they brought in themselves (`indexed_by`): another's that
 * they may open is a 403. One the caller may not open is a 404, as for a document that does not
 * exist (its uploader deletes a private upload; nobody learns it is there).
 */
export async function deleteDocument(deps: ServiceDependencies, caller: Caller, id: string): Promise<void> {
  const documentId = parseSerialId(id);
  if (documentId === undefined) throw new ServiceError('not_found', 'Document not found');
  const document = await deps.data.teams.findDocumentIndexer(memberReader(caller), documentId);
  if (document === undefined || (!document.readable && document.indexedBy !== caller.userId)) {
    throw new ServiceError('not_found', 'Document not found');
  }
  if (!managesTeam(caller) && document.indexedBy !== caller.userId) {
    throw new ServiceError(
      'forbidden',
      "Only the team's owner and admins may delete documents others brought in; members delete their own",
    );
  }
  const chunks = await deps.data.documents.deleteTeamDocument(caller.teamId, documentId);
  if (chunks === undefined) throw new ServiceError('not_found', 'Document not found');
  deps.storage.noteDeleted(chunks);
}

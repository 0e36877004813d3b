import { memberReader } from '../access.js';
import { type Caller, managesTeam } from '../caller.js';
import { ServiceError } from '../errors.js';
import type { ServiceDependencies } from './dependencies.js';
import { parseSerialId } from './serial-id.js';

/** What deciding who may delete a document needs to know of it. */
export interface DeletableDocument {
  /** Whether the caller may open it. */
  readonly readable: boolean;
  /** Who brought it in (null when unknown, or that user is gone). */
  readonly indexedBy: number | null;
}

/**
 * Whether the caller may delete one of their team's documents: their own (`indexed_by`) always
 * (a private upload of theirs too), another's only as an owner or admin who may open it. The one
 * rule: DELETE enforces it and listings show it (`can_delete`), so they never disagree.
 */
export function mayDeleteDocument(
  caller: Pick<Caller, 'userId' | 'role'>,
  document: DeletableDocument,
): boolean {
  return document.indexedBy === caller.userId || (document.readable && managesTeam(caller));
}

/**
 * Deletes one of the team's documents with its chunks and vectors, as `mayDeleteDocument` allows:
 * another's that a member may open is a 403. One the caller may not open (and did not bring in) is
 * a 404, as for a document that does not exist: nobody learns it is there.
 */
export async function deleteDocument(deps: ServiceDependencies, caller: Caller, id: string): Promise<void> {
  const documentId = parseSerialId(id);
  if (documentId === undefined) throw new ServiceError('not_found', 'Document not found');
  const document = await deps.data.teams.findDocumentIndexer(memberReader(caller), documentId);
  if (document === undefined) throw new ServiceError('not_found', 'Document not found');
  if (!mayDeleteDocument(caller, document)) {
    if (!document.readable) throw new ServiceError('not_found', 'Document not found');
    throw new ServiceError(
      'forbidden',
      "Only the team's owner and admins may delete documents others brought in; members delete their own",
    );
  }
  const chunks = await deps.data.documents.deleteTeamDocument(caller.teamId, documentId);
  if (chunks === undefined) throw new ServiceError('not_found', 'Document not found');
  deps.storage.noteDeleted(chunks);
  // No process finds it once the client hears it is gone.
  await deps.writesSearchable();
}

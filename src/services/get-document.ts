import type { Caller } from '../caller.js';
import { findTeamDocument, listDocumentChunks } from '../db/repositories/documents.js';
import { ServiceError } from '../errors.js';
import type { ServiceDependencies } from './dependencies.js';
import { documentView } from './document-view.js';
import { parseSerialId } from './serial-id.js';

/** Most chunks a document's page gets: a page to read, not an export (about 500,000 words). */
export const DOCUMENT_PAGE_MAX_CHUNKS = 2000;

/** One of the caller's team's documents with its stored text, chunk by chunk in order. */
export async function getDocument(deps: ServiceDependencies, caller: Caller, id: string) {
  const documentId = parseSerialId(id);
  if (documentId === undefined) throw new ServiceError('not_found', 'Document not found');
  const [document, chunks] = await Promise.all([
    findTeamDocument(deps.sql, caller.teamId, documentId),
    listDocumentChunks(deps.sql, caller.teamId, documentId, DOCUMENT_PAGE_MAX_CHUNKS),
  ]);
  if (document === undefined) throw new ServiceError('not_found', 'Document not found');
  return {
    document: documentView(document),
    chunks: chunks.map((chunk) => ({
      chunk_id: chunk.id,
      position: chunk.position,
      text: chunk.text,
      heading_path: chunk.headingPath,
    })),
  };
}

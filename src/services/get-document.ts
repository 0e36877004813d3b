import { memberReader } from '../access.js';
import type { Caller } from '../caller.js';
import { ServiceError } from '../errors.js';
import type { ServiceDependencies } from './dependencies.js';
import { documentView } from './document-view.js';
import { parseSerialId } from './serial-id.js';

/** Most chunks a document's page gets: a page to read, not an export (about 500,000 words). */
export const DOCUMENT_PAGE_MAX_CHUNKS = 2000;

/**
 * One document of the caller's team that they may open, with its stored text, chunk by chunk in
 * order; one they may not open is as unknown as another team's (404).
 */
export async function getDocument(deps: ServiceDependencies, caller: Caller, id: string) {
  const documentId = parseSerialId(id);
  if (documentId === undefined) throw new ServiceError('not_found', 'Document not found');
  const reader = memberReader(caller);
  const [document, chunks] = await Promise.all([
    deps.data.documents.findReadableDocument(reader, documentId),
    deps.data.documents.listReadableDocumentChunks(reader, documentId, DOCUMENT_PAGE_MAX_CHUNKS),
  ]);
  if (document === undefined) throw new ServiceError('not_found', 'Document not found');
  const access = await deps.data.accessLists.findAccessLists(caller.teamId, [document.accessListId]);
  return {
    document: documentView(document, access, caller),
    chunks: chunks.map((chunk) => ({
      chunk_id: chunk.id,
      position: chunk.position,
      text: chunk.text,
      heading_path: chunk.headingPath,
    })),
  };
}

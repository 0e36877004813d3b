import type { Caller } from '../caller.js';
import { ServiceError } from '../errors.js';
import type { ServiceDependencies } from './dependencies.js';
import { DOCUMENT_PAGE_MAX_CHUNKS, getDocument } from './get-document.js';
import { documentLink, parseMcpDocumentId } from './mcp-document-ids.js';

export interface McpFetchedDocument {
  readonly id: string;
  readonly title: string;
  readonly text: string;
  readonly url: string;
  readonly metadata: Record<string, unknown>;
}

/**
 * The MCP `fetch` tool: a whole document the caller may open, by a `search` result's id or a
 * document id. An id they may not open is refused exactly as one that does not exist (not_found).
 */
export async function mcpFetch(
  deps: ServiceDependencies,
  caller: Caller,
  id: string,
): Promise<McpFetchedDocument> {
  const parsed = parseMcpDocumentId(id);
  if (parsed === undefined) throw new ServiceError('not_found', 'Document not found');
  const { document, chunks } = await getDocument(deps, caller, parsed.documentId);
  // A passage of another document is not this one's: the link then names the document only.
  const chunkId = chunks.some((chunk) => chunk.chunk_id === parsed.chunkId) ? parsed.chunkId : undefined;
  return {
    id: id.trim(),
    title: document.title,
    text: chunks.map((chunk) => chunk.text).join('\n\n'),
    url: documentLink(deps.config.publicUrl, { documentId: document.id, url: document.url }, chunkId),
    metadata: {
      document_id: document.id,
      external_id: document.external_id,
      source: document.source,
      file_name: document.file_name,
      mime_type: document.mime_type,
      created_at: document.created_at,
      updated_at: document.updated_at,
      indexed_at: document.indexed_at,
      passages: chunks.length,
      // The text stops at the page's limit: a longer document is cut there.
      truncated: document.chunks > chunks.length && chunks.length >= DOCUMENT_PAGE_MAX_CHUNKS,
    },
  };
}

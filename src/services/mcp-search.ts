import type { Caller } from '../caller.js';
import type { ServiceDependencies } from './dependencies.js';
import { documentLink, passageIdOf } from './mcp-document-ids.js';
import { type DocumentSource, searchDocuments } from './search-documents.js';

export interface McpSearchInput {
  readonly query: string;
  readonly topK: number;
  readonly sources?: readonly DocumentSource[] | undefined;
}

/** A passage as MCP clients (ChatGPT's connectors, deep research) expect a `search` result. */
export interface McpSearchResult {
  readonly id: string;
  readonly title: string;
  readonly url: string;
  readonly text: string;
}

/**
 * The MCP `search` tool: the passages POST /v1/search finds for the caller (only what they may
 * open), best first, each with the id `fetch` takes and a link a person can open.
 */
export async function mcpSearch(
  deps: Pick<ServiceDependencies, 'search' | 'config'>,
  caller: Caller,
  input: McpSearchInput,
  signal?: AbortSignal,
): Promise<{ results: McpSearchResult[] }> {
  const { results } = await searchDocuments(
    deps,
    caller,
    { query: input.query, topK: input.topK, sources: input.sources },
    signal,
  );
  return {
    results: results.map((result) => ({
      id: passageIdOf(result.document_id, result.chunk_id),
      title: result.title,
      url: documentLink(
        deps.config.publicUrl,
        { documentId: result.document_id, url: result.url },
        result.chunk_id,
      ),
      text: result.text,
    })),
  };
}

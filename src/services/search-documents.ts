import { memberReader } from '../access.js';
import type { Caller } from '../caller.js';
import type { DocumentSource, PreparedSearch, SearchMode } from '../retrieval/search-types.js';
import type { ServiceDependencies } from './dependencies.js';

export type { DocumentSource, PreparedSearch };

export interface SearchDocumentsInput {
  readonly query: string;
  readonly topK: number;
  readonly mode?: SearchMode | undefined;
  readonly connectorIds?: readonly number[] | undefined;
  readonly sources?: readonly DocumentSource[] | undefined;
}

export interface SearchResultView {
  document_id: number;
  external_id: string;
  title: string;
  file_name: string | null;
  url: string | null;
  source: string;
  chunk_id: number;
  heading_path: string[];
  text: string;
  score: number;
}

/**
 * Begins the caller's search as their request arrives, before its body is read (see
 * `TeamSearch.prepare`): pass what it answers to `searchDocuments` for the same request only.
 */
export function prepareSearchDocuments(
  deps: Pick<ServiceDependencies, 'search'>,
  caller: Caller,
): PreparedSearch | undefined {
  return deps.search.prepare?.(memberReader(caller));
}

/** Ranked chunks of the caller's team; the team comes from the caller, never from the request. */
export async function searchDocuments(
  deps: Pick<ServiceDependencies, 'search'>,
  caller: Caller,
  input: SearchDocumentsInput,
  signal?: AbortSignal,
  prepared?: PreparedSearch,
): Promise<{ results: SearchResultView[] }> {
  const hits = await deps.search.search({ reader: memberReader(caller), ...input, signal, prepared });
  return {
    results: hits.map((hit) => ({
      document_id: hit.documentId,
      external_id: hit.externalId,
      title: hit.title,
      file_name: hit.fileName,
      url: hit.url,
      source: hit.source,
      chunk_id: hit.chunkId,
      heading_path: [...hit.headingPath],
      text: hit.text,
      score: hit.score,
    })),
  };
}

import { memberReader } from '../access.js';
import type { Caller } from '../caller.js';
import type { DocumentSource, SearchMode } from '../retrieval/search-types.js';
import type { ServiceDependencies } from './dependencies.js';

export type { DocumentSource };

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

/** Ranked chunks of the caller's team; the team comes from the caller, never from the request. */
export async function searchDocuments(
  deps: Pick<ServiceDependencies, 'search'>,
  caller: Caller,
  input: SearchDocumentsInput,
  signal?: AbortSignal,
): Promise<{ results: SearchResultView[] }> {
  const hits = await deps.search.search({ reader: memberReader(caller), ...input, signal });
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

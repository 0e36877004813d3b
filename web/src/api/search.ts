import { requestJson } from './http';
import type { SearchResult } from './types';

/** POST /v1/search: the team's passages ranked for a query. */
export async function searchPassages(query: string, signal?: AbortSignal): Promise<SearchResult[]> {
  const answer = await requestJson<{ results: SearchResult[] }>('POST', '/v1/search', {
    body: { query, top_k: 20 },
    ...(signal === undefined ? {} : { signal }),
  });
  return answer.results;
}

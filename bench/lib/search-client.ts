// POST /v1/search as a client calls it (bench/eval-scifact, bench/search).

export type SearchMode = 'hybrid' | 'lexical' | 'dense';

export interface SearchRequestBody {
  readonly query: string;
  readonly top_k?: number;
  readonly mode?: SearchMode;
}

export interface SearchResult {
  readonly document_id: number;
  readonly external_id: string;
  readonly title: string;
  readonly url: string | null;
  readonly source: string;
  readonly chunk_id: number;
  readonly heading_path?: readonly string[];
  readonly text: string;
  readonly score: number;
}

export class SearchFailed extends Error {
  constructor(
    readonly status: number,
    body: string,
  ) {
    super(`POST /v1/search answered ${status}: ${body.slice(0, 300)}`);
  }
}

/** One search; `ms` runs from sending the request to having read the whole answer. */
export async function searchOnce(
  baseUrl: string,
  headers: Readonly<Record<string, string>>,
  body: SearchRequestBody,
  timeoutMs = 30_000,
): Promise<{ results: SearchResult[]; ms: number }> {
  const started = performance.now();
  const response = await fetch(`${baseUrl}/v1/search`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  const ms = performance.now() - started;
  if (response.status !== 200) throw new SearchFailed(response.status, text);
  const parsed = JSON.parse(text) as { results?: SearchResult[] };
  return { results: parsed.results ?? [], ms };
}

/** Runs `work` over `items` with at most `concurrency` at once; answers results in input order. */
export async function mapConcurrently<T, R>(
  items: readonly T[],
  concurrency: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, async () => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await work(items[index] as T, index);
    }
  });
  await Promise.all(lanes);
  return results;
}

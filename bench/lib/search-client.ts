// POST /v1/search as a client calls it (bench/eval-scifact, bench/search).
import http from 'node:http';

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

/**
 * Searches one after another over one kept-alive connection with Node's own HTTP client, for
 * latency measured against another engine's round trip: `fetch` (undici) adds a few tenths of a
 * millisecond of its own to every request, which is the client's cost, not the service's.
 */
export class KeptAliveSearchClient {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  private readonly url: URL;

  constructor(
    baseUrl: string,
    private readonly headers: Readonly<Record<string, string>>,
  ) {
    this.url = new URL('/v1/search', baseUrl);
  }

  /** One search; `ms` runs from sending the request to having read the whole answer. */
  search(body: SearchRequestBody, timeoutMs = 30_000): Promise<{ results: SearchResult[]; ms: number }> {
    const payload = JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const started = performance.now();
      const request = http.request(
        this.url,
        {
          method: 'POST',
          agent: this.agent,
          timeout: timeoutMs,
          headers: {
            ...this.headers,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(payload),
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', reject);
          response.on('end', () => {
            const ms = performance.now() - started;
            const text = Buffer.concat(chunks).toString('utf8');
            if (response.statusCode !== 200) {
              reject(new SearchFailed(response.statusCode ?? 0, text));
              return;
            }
            const parsed = JSON.parse(text) as { results?: SearchResult[] };
            resolve({ results: parsed.results ?? [], ms });
          });
        },
      );
      request.on('timeout', () => request.destroy(new Error(`POST /v1/search took over ${timeoutMs} ms`)));
      request.on('error', reject);
      request.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
  }
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

// Closed-loop search clients in the benchmark's process: each sends its next POST /v1/search when
// its last one is answered, for a fixed time, over kept-alive connections of one shared agent.
import http from 'node:http';
import type { ScifactQuery } from '../lib/scifact.js';

/** One answered (or failed) search. */
interface Attempt {
  /** From sending the request to having read (and parsed) the whole answer. */
  readonly ms: number;
  /** When it ended, on this process's performance clock. */
  readonly endedAt: number;
  /** Undefined when it answered 200 with a `results` array. */
  readonly error: string | undefined;
  readonly empty: boolean;
}

export interface ClientsRun {
  readonly clients: number;
  /** The measured window: no search is started after it ends. */
  readonly windowMs: number;
  /** Searches answered 200 within the window, per second of it. */
  readonly perSecond: number;
  /** Latencies of every search answered 200 (those still in flight when the window ended included). */
  readonly latencies: readonly number[];
  /** Non-200 answers and network failures (timeouts included), with the first messages. */
  readonly errors: number;
  readonly errorSamples: readonly string[];
  /** Searches, answered or failed, that took longer than `slowMs`. */
  readonly slow: number;
  readonly emptyAnswers: number;
  /** Performance-clock start and end of the window. */
  readonly startedAt: number;
  readonly endedAt: number;
}

export interface ClientsOptions {
  readonly baseUrl: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly queries: readonly ScifactQuery[];
  readonly topK: number;
  readonly clients: number;
  readonly durationMs: number;
  readonly requestTimeoutMs: number;
  readonly slowMs: number;
  /** Where the next client starts in the shared cycle of queries. */
  readonly cursor: { next: number };
  /** Called once the window has started (to open CPU accounting, say). */
  readonly onStart?: () => void;
  /** Called when the window ends, before the searches still in flight are awaited. */
  readonly onWindowEnd?: () => void;
}

/** Sizes the agent for every client plus a margin, so that no search waits for a socket. */
export function searchAgent(clients: number): http.Agent {
  return new http.Agent({ keepAlive: true, maxSockets: clients + 14, maxFreeSockets: clients + 14 });
}

/** Runs `clients` closed loops for `durationMs`, then waits for the searches still in flight. */
export async function runSearchClients(agent: http.Agent, options: ClientsOptions): Promise<ClientsRun> {
  const url = new URL('/v1/search', options.baseUrl);
  const attempts: Attempt[] = [];
  const startedAt = performance.now();
  const deadline = startedAt + options.durationMs;
  options.onStart?.();
  let windowEnded = false;
  const endTimer = setTimeout(() => {
    windowEnded = true;
    options.onWindowEnd?.();
  }, options.durationMs);
  const loops = Array.from({ length: options.clients }, async () => {
    while (performance.now() < deadline) {
      const query = options.queries[options.cursor.next % options.queries.length] as ScifactQuery;
      options.cursor.next += 1;
      const body = JSON.stringify({ query: query.text, top_k: options.topK });
      attempts.push(await searchOnce(agent, url, options.headers, body, options.requestTimeoutMs));
    }
  });
  await Promise.all(loops);
  clearTimeout(endTimer);
  if (!windowEnded) options.onWindowEnd?.();
  const answered = attempts.filter((attempt) => attempt.error === undefined);
  const failed = attempts.filter((attempt) => attempt.error !== undefined);
  return {
    clients: options.clients,
    windowMs: options.durationMs,
    perSecond: answered.filter((attempt) => attempt.endedAt <= deadline).length / (options.durationMs / 1000),
    latencies: answered.map((attempt) => attempt.ms),
    errors: failed.length,
    errorSamples: [...new Set(failed.map((attempt) => attempt.error ?? ''))].slice(0, 3),
    slow: attempts.filter((attempt) => attempt.ms > options.slowMs).length,
    emptyAnswers: answered.filter((attempt) => attempt.empty).length,
    startedAt,
    endedAt: deadline,
  };
}

/** One POST /v1/search through node:http (lighter than fetch: this process must not be the bottleneck). */
function searchOnce(
  agent: http.Agent,
  url: URL,
  headers: Readonly<Record<string, string>>,
  body: string,
  timeoutMs: number,
): Promise<Attempt> {
  const sent = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    const settle = (error: string | undefined, empty = false) => {
      if (settled) return;
      settled = true;
      const endedAt = performance.now();
      resolve({ ms: endedAt - sent, endedAt, error, empty });
    };
    const request = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
        timeout: timeoutMs,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', (error) => settle(error.message));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (response.statusCode !== 200) {
            settle(`answered ${response.statusCode}: ${text.slice(0, 200)}`);
            return;
          }
          try {
            const results = (JSON.parse(text) as { results?: unknown }).results;
            if (!Array.isArray(results)) settle('answered 200 without a results array');
            else settle(undefined, results.length === 0);
          } catch {
            settle(`answered 200 with a body that is not JSON: ${text.slice(0, 200)}`);
          }
        });
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    request.on('error', (error) => settle(error.message));
    request.end(body);
  });
}

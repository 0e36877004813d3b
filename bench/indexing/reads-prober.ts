// The reads prober of `bench/indexing --section=reads`: runs in a process of its own (so the
// benchmark's own work never delays a request) and sends, each on its own fixed schedule and
// whether or not the previous answers have come back:
//   - POST /v1/search with the next query of a list,
//   - GET /v1/documents/jobs/{id} of a finished job,
//   - GET /healthz.
// Its settings come as one JSON object on stdin (they hold a bearer token):
//   {"baseUrl", "token", "jobId", "queries": [...], "intervalMs", "timeoutMs"}
// It prints `ready` once each kind of request has been answered 200 once; on SIGTERM it sends no
// more, waits up to STOP_GRACE_MS for the requests under way (due before the stop, so they belong
// to the last phase), then prints every sample as one JSON line and exits. A request still
// unanswered then is a sample too, with the time it had been waiting and status -1. Latency runs
// from the moment a request was due.
import http from 'node:http';

/** How long a stop waits for the requests under way (the benchmark's stop allows 5 s in all). */
const STOP_GRACE_MS = 3_000;

/**
 * `[kind, dueAtEpochMs, latencyMs, status, hits]`: kind 0 is a search, 1 a job status, 2 /healthz
 * (import only types from this file: importing it runs the prober); status is the HTTP
 * status, 0 for no answer (connection error or the request's time-out), -1 for still waiting when
 * the prober stopped; hits is the number of search results (-1 for the other kinds).
 */
export type ReadSample = readonly [
  kind: 0 | 1 | 2,
  dueAtEpochMs: number,
  latencyMs: number,
  status: number,
  hits: number,
];

export interface ReadsProberConfig {
  readonly baseUrl: string;
  readonly token: string;
  readonly jobId: string;
  readonly queries: readonly string[];
  readonly intervalMs: number;
  readonly timeoutMs: number;
}

function readStdin(): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (chunk: string) => {
      text += chunk;
    });
    process.stdin.on('end', () => resolve(text));
    process.stdin.on('error', reject);
  });
}

async function main(): Promise<void> {
  const config = JSON.parse(await readStdin()) as ReadsProberConfig;
  const samples: ReadSample[] = [];
  const waiting = new Map<number, { kind: 0 | 1 | 2; due: number }>();
  const answered = new Set<number>();
  let announced = false;
  let stopping = false;
  /** Stopped sending: waiting for the requests under way before reporting. */
  let draining = false;
  let nextId = 0;
  let nextQuery = 0;
  // One agent per kind: a stalled search must not hold the sockets /healthz needs.
  const agents = [0, 1, 2].map(() => new http.Agent({ keepAlive: true, maxSockets: 256 }));
  const authorization = `Bearer ${config.token}`;

  const send = (kind: 0 | 1 | 2): void => {
    const id = nextId++;
    const due = performance.now();
    waiting.set(id, { kind, due });
    let done = false;
    const finish = (status: number, body: string) => {
      if (done) return;
      done = true;
      waiting.delete(id);
      if (stopping) return;
      let hits = -1;
      if (kind === 0 && status === 200) {
        try {
          hits = ((JSON.parse(body) as { results?: unknown[] }).results ?? []).length;
        } catch {
          hits = 0;
        }
      }
      samples.push([kind, performance.timeOrigin + due, performance.now() - due, status, hits]);
      if (status === 200) answered.add(kind);
      if (!announced && answered.size === 3) {
        announced = true;
        process.stdout.write('ready\n');
      }
    };
    const url = new URL(
      kind === 0
        ? '/v1/search'
        : kind === 1
          ? `/v1/documents/jobs/${encodeURIComponent(config.jobId)}`
          : '/healthz',
      config.baseUrl,
    );
    let payload: string | undefined;
    const headers: Record<string, string> = {};
    if (kind !== 2) headers.authorization = authorization;
    if (kind === 0) {
      const query = config.queries[nextQuery % config.queries.length] ?? 'protein';
      nextQuery += 1;
      payload = JSON.stringify({ query, top_k: 10 });
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(payload));
    }
    const request = http.request(
      url,
      { method: kind === 0 ? 'POST' : 'GET', headers, agent: agents[kind], timeout: config.timeoutMs },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          if (kind === 0) body += chunk;
        });
        response.on('end', () => finish(response.statusCode ?? 0, body));
        response.on('error', () => finish(0, ''));
      },
    );
    request.on('timeout', () => request.destroy(new Error('timed out')));
    request.on('error', () => finish(0, ''));
    request.end(payload);
  };

  // Each kind on a fixed schedule of its own (the n-th due at start + offset + n × interval), the
  // three staggered by a third of the interval so that they do not all arrive together.
  const start = performance.now();
  const timers: NodeJS.Timeout[] = [];
  for (const kind of [0, 1, 2] as const) {
    const offset = (kind * config.intervalMs) / 3;
    let sent = 0;
    const tick = () => {
      if (stopping || draining) return;
      send(kind);
      sent += 1;
      const next = start + offset + sent * config.intervalMs;
      timers[kind] = setTimeout(tick, Math.max(0, next - performance.now()));
    };
    timers[kind] = setTimeout(tick, offset);
  }

  process.on('SIGTERM', () => {
    if (draining) return;
    draining = true;
    for (const timer of timers) clearTimeout(timer);
    // A request due just before the stop is answered after it: it is waited for, not failed.
    const stoppedAt = performance.now();
    const drain = setInterval(() => {
      if (waiting.size > 0 && performance.now() - stoppedAt < STOP_GRACE_MS) return;
      clearInterval(drain);
      report();
    }, 5);
  });

  const report = (): void => {
    const now = performance.now();
    for (const { kind, due } of waiting.values()) {
      samples.push([kind, performance.timeOrigin + due, now - due, -1, -1]);
    }
    stopping = true;
    for (const timer of timers) clearTimeout(timer);
    process.stdout.write(`${JSON.stringify(samples)}\n`, () => {
      for (const agent of agents) agent.destroy();
      process.exit(0);
    });
  };
}

main().catch((error: unknown) => {
  process.stderr.write(`reads prober: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});

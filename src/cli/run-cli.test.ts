import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from '../../test/helpers/run-cli.js';

// The real service is in test/e2e/cli.test.ts; this server plays one that goes wrong mid-run,
// which the real one cannot be made to do on cue.
let server: Server | undefined;
async function serviceAnsweringUploadsWith(status: number, body: unknown): Promise<string> {
  server = createServer((request, response) => {
    request.resume();
    const ok = request.method === 'GET' && request.url === '/v1/users/me';
    response.writeHead(ok ? 200 : status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(ok ? { id: 1 } : body));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const DATABASE_DOWN = 'The database is unavailable; try again shortly';

interface FakeService {
  readonly url: string;
  /** The external_ids of every document a 202 accepted, in order: each once, unless re-posted. */
  readonly accepted: string[];
  /** How many requests were answered 503. */
  unavailableAnswers: number;
  /** Stops listening (new connections are refused) for `ms`, then listens again on the same port. */
  refuseConnectionsFor(ms: number): Promise<void>;
}

/**
 * Plays the service's JSON upload API as the real one answers it: POST /v1/documents is a 202
 * with a job, and the job is done, every document indexed, when first polled. While
 * `unavailable()` says so, every request is answered as the API does when its database is away.
 * Connections are not kept alive, so that no socket outlives a `refuseConnectionsFor`.
 */
async function fakeService(
  hooks: { unavailable?: (request: IncomingMessage) => boolean; accepted?: (fake: FakeService) => void } = {},
): Promise<FakeService> {
  const jobs = new Map<string, { external_id: string; title: string }[]>();
  const answer = (response: ServerResponse, status: number, body: unknown, headers = {}) => {
    response.writeHead(status, { 'content-type': 'application/json', connection: 'close', ...headers });
    response.end(JSON.stringify(body));
  };
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    let text = '';
    for await (const chunk of request) text += String(chunk);
    if (request.url === '/v1/users/me') return answer(response, 200, { id: 1 });
    if (hooks.unavailable?.(request) === true) {
      fake.unavailableAnswers += 1;
      return answer(response, 503, { detail: DATABASE_DOWN }, { 'retry-after': '1' });
    }
    if (request.method === 'POST' && request.url === '/v1/documents') {
      const { documents } = JSON.parse(text) as { documents: { external_id: string; title: string }[] };
      const id = `job-${jobs.size + 1}`;
      jobs.set(id, documents);
      fake.accepted.push(...documents.map((document) => document.external_id));
      answer(response, 202, { result_id: id, result_ready: false, status: 'queued' });
      hooks.accepted?.(fake);
      return;
    }
    const documents = jobs.get(/^\/v1\/documents\/jobs\/(.+)$/.exec(request.url ?? '')?.[1] ?? '');
    if (request.method !== 'GET' || documents === undefined)
      return answer(response, 404, { detail: 'Not Found' });
    const n = documents.length;
    return answer(response, 200, {
      result_ready: true,
      status: 'completed',
      progress: { done: n, total: n, indexed: n, skipped: 0, failed: 0 },
      error: null,
      files: documents.map((document) => ({
        id: document.external_id,
        name: document.title,
        status: 'indexed',
        reason: null,
        chunks: 1,
        message: null,
      })),
    });
  };
  const listen = async (port: number) => {
    server = createServer((request, response) => void handle(request, response));
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
    return (server.address() as AddressInfo).port;
  };
  const port = await listen(0);
  const fake: FakeService = {
    url: `http://127.0.0.1:${port}`,
    accepted: [],
    unavailableAnswers: 0,
    async refuseConnectionsFor(ms) {
      server?.close();
      await new Promise((resolve) => setTimeout(resolve, ms));
      await listen(port);
    },
  };
  return fake;
}

/** How often `text` holds `part`. */
function occurrences(text: string, part: string): number {
  return text.split(part).length - 1;
}

function run(argv: string[]) {
  return runCliCaptured(argv, { pollIntervalMs: 20, retryBaseMs: 1 });
}

let folder: string;
let corpus: string;
beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), 'run-cli-'));
  corpus = path.join(folder, 'corpus.jsonl');
  await writeFile(
    corpus,
    Array.from({ length: 5 }, (_, index) => JSON.stringify({ _id: `${index}`, text: `doc ${index}` })).join(
      '\n',
    ),
  );
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});
afterEach(() => {
  server?.close();
  server = undefined;
});

describe('runCli when the service goes wrong after the start', () => {
  it('stops at a token refused mid-run: exit 2, with the summary so far', async () => {
    const url = await serviceAnsweringUploadsWith(401, { detail: 'Not authenticated' });
    const result = await run(['ingest', corpus, '--url', url, '--token', 'revoked', '--batch-size', '2']);
    expect(result.code).toBe(2);
    expect(result.stdout).toMatch(
      /^Stopped early: the service refused the token \(401\): Not authenticated$/m,
    );
    expect(result.stdout).toMatch(/^Indexed +0$/m);
  });

  it('records the documents of a request that keeps failing with 5xx as failed, and goes on: exit 1', async () => {
    const url = await serviceAnsweringUploadsWith(500, { detail: 'Internal Server Error' });
    const result = await run([
      'ingest',
      corpus,
      '--url',
      url,
      '--token',
      't',
      '--batch-size',
      '2',
      '--retries',
      '1',
      '--json',
    ]);
    expect(result.code).toBe(1);
    const summary = JSON.parse(result.stdout);
    expect(summary).toMatchObject({ failed: 5, failed_reasons: { server_error: 5 }, aborted: null });
    expect(summary.failures[0]).toMatchObject({
      id: '0',
      line: 1,
      message: 'HTTP 500: Internal Server Error',
    });
  });

  it('prints the usage for --help, and refuses an unknown command', async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--batch-size N');
    expect(help.stdout).toContain('--max-wait SECONDS');
    const badWait = await run(['ingest', corpus, '--token', 't', '--max-wait', 'forever']);
    expect(badWait.code).toBe(2);
    expect(badWait.stderr).toMatch(/--max-wait must be a whole number from 0 to 86400/);
    const unknown = await run(['upload', corpus]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command "upload"/);
  });
});

describe('runCli riding out an outage of the service', () => {
  it('waits out 503s while the database is away, telling it once, and then sends everything once: exit 0', async () => {
    let outageFrom: number | undefined;
    const fake = await fakeService({
      // The database goes away as the first upload arrives, for 2.5 s: polls would get 503 too.
      unavailable: (request) => {
        if (request.method === 'POST') outageFrom ??= Date.now();
        return outageFrom !== undefined && Date.now() - outageFrom < 2_500;
      },
    });
    const startedAt = Date.now();
    const result = await run([
      'ingest',
      corpus,
      '--url',
      fake.url,
      '--token',
      't',
      '--batch-size',
      '2',
      '--json',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(2_400);
    expect(fake.unavailableAnswers).toBeGreaterThanOrEqual(4);
    // Stdout is the JSON alone; the outage was told once on stderr, and nothing when it ended.
    const summary = JSON.parse(result.stdout);
    expect(summary).toMatchObject({ indexed: 5, failed: 0, queued: 0, aborted: null });
    expect(result.stderr).toBe(
      `knowledge-answers: service unavailable (503: ${DATABASE_DOWN}); retrying for up to 300 s\n`,
    );
    expect(fake.accepted.sort()).toEqual(['0', '1', '2', '3', '4']);
  });

  it('waits out refused connections while the API restarts, uploads and job polls alike: exit 0', async () => {
    let refusing: Promise<void> | undefined;
    const fake = await fakeService({
      // The API goes away for 2 s once the first batch is accepted: the next batch and the polls
      // of that job meet a closed port.
      accepted: (service) => {
        refusing ??= service.refuseConnectionsFor(2_000);
      },
    });
    const startedAt = Date.now();
    const result = await run([
      'ingest',
      corpus,
      '--url',
      fake.url,
      '--token',
      't',
      '--batch-size',
      '2',
      '--concurrency',
      '1',
    ]);
    expect(refusing).toBeDefined();
    expect(result.code, result.stderr).toBe(0);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1_900);
    expect(result.stdout).toMatch(/^Indexed +5$/m);
    expect(result.stdout).toMatch(/^Failed +0$/m);
    expect(occurrences(result.stderr, 'knowledge-answers: ')).toBe(1);
    expect(result.stderr).toMatch(
      /^knowledge-answers: service unreachable \((ECONNREFUSED|ECONNRESET)\); retrying for up to 300 s$/m,
    );
    expect(fake.accepted.sort()).toEqual(['0', '1', '2', '3', '4']);
  });

  it("gives up on an outage longer than --max-wait and --retries allow, naming the 503's detail: exit 2", async () => {
    const fake = await fakeService({ unavailable: (request) => request.method === 'POST' });
    const startedAt = Date.now();
    const result = await run([
      'ingest',
      corpus,
      '--url',
      fake.url,
      '--token',
      't',
      '--batch-size',
      '2',
      '--max-wait',
      '1',
      '--retries',
      '1',
    ]);
    expect(result.code).toBe(2);
    expect(Date.now() - startedAt).toBeLessThan(5_000);
    expect(result.stdout).toMatch(
      new RegExp(
        `^Stopped early: the service stopped answering: POST ${fake.url}/v1/documents still unavailable after \\d+\\.\\ds \\(503: ${DATABASE_DOWN}\\)$`,
        'm',
      ),
    );
    // Nothing was accepted, and nothing is counted as failed: a re-run sends it all.
    expect(result.stdout).toMatch(/^Indexed +0$/m);
    expect(result.stdout).toMatch(/^Failed +0$/m);
    expect(fake.accepted).toEqual([]);
    expect(occurrences(result.stderr, 'service unavailable (503')).toBe(1);
  });
});

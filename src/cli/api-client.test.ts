import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../test/helpers/service-process.js';
import {
  ApiClient,
  detailOf,
  retryAfterMs,
  ServerUnreachableError,
  validationIssuesOf,
} from './api-client.js';

/** A local server answering each request with the next of `answers` (the last one repeats). */
async function serve(
  answers: ((request: IncomingMessage, response: ServerResponse) => void)[],
): Promise<{ url: URL; requests: { method: string; url: string; authorization: string; at: number }[] }> {
  const requests: { method: string; url: string; authorization: string; at: number }[] = [];
  server = createServer((request, response) => {
    requests.push({
      method: request.method ?? '',
      url: request.url ?? '',
      authorization: request.headers.authorization ?? '',
      at: Date.now(),
    });
    request.resume();
    const answer = answers[Math.min(requests.length, answers.length) - 1];
    answer?.(request, response);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { url: new URL(`http://127.0.0.1:${port}/base`), requests };
}

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}) =>
  (_request: IncomingMessage, response: ServerResponse) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify(body));
  };

let server: Server | undefined;
afterEach(async () => {
  server?.close();
  server = undefined;
});

describe('ApiClient', () => {
  it('sends the bearer token under the base path, and retries 503 and 429 with backoff and Retry-After', async () => {
    const { url, requests } = await serve([
      json(503, { detail: 'busy' }),
      // Retry-After is whole seconds (RFC 9110): 1 is the shortest hint there is.
      json(429, { detail: 'slow down' }, { 'retry-after': '1' }),
      json(202, { result_id: 'job-1', result_ready: false }),
    ]);
    const client = new ApiClient({ baseUrl: url, token: 'tok', retries: 3, retryBaseMs: 10 });
    const response = await client.postJson('v1/documents', '{"documents":[]}');
    expect(response).toEqual({ status: 202, body: { result_id: 'job-1', result_ready: false } });
    expect(requests.map((request) => [request.method, request.url, request.authorization])).toEqual([
      ['POST', '/base/v1/documents', 'Bearer tok'],
      ['POST', '/base/v1/documents', 'Bearer tok'],
      ['POST', '/base/v1/documents', 'Bearer tok'],
    ]);
    const [, second, third] = requests;
    expect((third?.at ?? 0) - (second?.at ?? 0)).toBeGreaterThanOrEqual(990);
  });

  it('answers the last 5xx once the retries are spent, and does not retry a 4xx', async () => {
    const failing = await serve([json(500, { detail: 'broken' })]);
    const client = new ApiClient({ baseUrl: failing.url, token: 'tok', retries: 2, retryBaseMs: 1 });
    expect(await client.get('v1/users/me')).toEqual({ status: 500, body: { detail: 'broken' } });
    expect(failing.requests).toHaveLength(3);
    server?.close();

    const refusing = await serve([
      json(422, { detail: [{ loc: ['body'], msg: 'Field required', type: 'missing' }] }),
    ]);
    const other = new ApiClient({ baseUrl: refusing.url, token: 'tok', retries: 2, retryBaseMs: 1 });
    expect((await other.get('v1/users/me')).status).toBe(422);
    expect(refusing.requests).toHaveLength(1);
  });

  it('gives up at once on a port that never answered, with ServerUnreachableError naming the address and never the token', async () => {
    const port = await freePort();
    // A port that never answered is a wrong --url rather than an outage: no waiting it out.
    const client = new ApiClient({
      baseUrl: new URL(`http://user:pw@127.0.0.1:${port}/`),
      token: 'very-secret',
      retries: 1,
      maxWaitMs: 60_000,
      retryBaseMs: 1,
      onUnavailable: () => expect.fail('not an outage'),
    });
    const error = await client.get('v1/users/me').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ServerUnreachableError);
    expect((error as Error).message).toMatch(
      new RegExp(`GET http://127.0.0.1:${port}/v1/users/me .*ECONNREFUSED`),
    );
    expect((error as Error).message).not.toMatch(/very-secret|pw/);
    expect(client.displayUrl).toBe(`http://127.0.0.1:${port}`);
  });
});

describe('ApiClient during an outage of the service', () => {
  const DATABASE_DOWN = 'The database is unavailable; try again shortly';
  /** 503 as the API answers while its database is away, until `isDown()` says otherwise. */
  const outageAnswer =
    (isDown: () => boolean, retryAfter = '1') =>
    (request: IncomingMessage, response: ServerResponse) =>
      isDown()
        ? json(503, { detail: DATABASE_DOWN }, { 'retry-after': retryAfter })(request, response)
        : json(200, { ok: true })(request, response);

  it('waits a 503 out past the retries for up to maxWait, honouring Retry-After, told once per outage', async () => {
    let downUntil = Date.now() + 3_500;
    const { url, requests } = await serve([outageAnswer(() => Date.now() < downUntil)]);
    const told: string[] = [];
    const client = new ApiClient({
      baseUrl: url,
      token: 'tok',
      retries: 1,
      maxWaitMs: 10_000,
      retryBaseMs: 1,
      onUnavailable: (message) => told.push(message),
    });
    // Two requests in the same outage: one message. A form is built afresh for every attempt.
    let forms = 0;
    const answers = await Promise.all([
      client.get('v1/a'),
      client.postForm('v1/b', async () => {
        forms += 1;
        const form = new FormData();
        form.append('file', new Blob(['# A']), 'a.md');
        return form;
      }),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    expect(told).toEqual([`service unavailable (503: ${DATABASE_DOWN}); retrying for up to 10 s`]);
    expect(forms).toBe(requests.filter((request) => request.url === '/base/v1/b').length);
    expect(forms).toBeGreaterThanOrEqual(4);
    const tries = requests.filter((request) => request.url === '/base/v1/a');
    expect(tries.length).toBeGreaterThanOrEqual(4);
    for (let index = 1; index < tries.length; index += 1) {
      expect((tries[index]?.at ?? 0) - (tries[index - 1]?.at ?? 0)).toBeGreaterThanOrEqual(990);
    }
    // The service answered: the next outage is a new one, told again.
    downUntil = Date.now() + 300;
    expect((await client.get('v1/a')).status).toBe(200);
    expect(told).toHaveLength(2);
    expect(client.lastUnavailableAt).toBeGreaterThan(Date.now() - 2_500);
  });

  it('gives up on a 503 that would outlast maxWait, naming its detail; other 5xx and maxWait 0 get only the retries', async () => {
    const down = await serve([outageAnswer(() => true, '1')]);
    const client = new ApiClient({
      baseUrl: down.url,
      token: 'tok',
      retries: 0,
      maxWaitMs: 1_500,
      retryBaseMs: 1,
    });
    const startedAt = Date.now();
    const error = await client.postJson('v1/documents', '{}').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ServerUnreachableError);
    expect((error as Error).message).toMatch(
      /^POST http:\/\/127\.0\.0\.1:\d+\/base\/v1\/documents still unavailable after 1\.\ds \(503: The database is unavailable; try again shortly\)$/,
    );
    // At 0 s and 1 s; a third try would come at 2 s, past the 1.5 s.
    expect(down.requests).toHaveLength(2);
    expect(Date.now() - startedAt).toBeLessThan(1_500);
    server?.close();

    const countOnly = await serve([outageAnswer(() => true, '0')]);
    const noWait = new ApiClient({
      baseUrl: countOnly.url,
      token: 'tok',
      retries: 2,
      maxWaitMs: 0,
      retryBaseMs: 1,
    });
    await expect(noWait.get('v1/users/me')).rejects.toThrow(ServerUnreachableError);
    expect(countOnly.requests).toHaveLength(3);
    server?.close();

    const broken = await serve([json(500, { detail: 'broken' })]);
    const patient = new ApiClient({
      baseUrl: broken.url,
      token: 'tok',
      retries: 1,
      maxWaitMs: 60_000,
      retryBaseMs: 1,
    });
    expect(await patient.get('v1/users/me')).toEqual({ status: 500, body: { detail: 'broken' } });
    expect(broken.requests).toHaveLength(2);
  });
});

describe('retryAfterMs', () => {
  it('reads seconds and HTTP dates, and caps long waits', () => {
    expect(retryAfterMs('3')).toBe(3000);
    expect(retryAfterMs(null)).toBeUndefined();
    expect(retryAfterMs('soon')).toBeUndefined();
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(retryAfterMs('Wed, 01 Jan 2025 00:00:05 GMT', now)).toBe(5000);
    expect(retryAfterMs('86400')).toBe(60_000);
    // Read as the service's own clients read it (RFC 9110): no negative, fractional or lenient dates.
    expect(retryAfterMs('-5')).toBeUndefined();
    expect(retryAfterMs('1.5')).toBeUndefined();
    expect(retryAfterMs('Wed, 01 Jan 2025')).toBeUndefined();
  });
});

describe('detailOf and validationIssuesOf', () => {
  it('reads both error shapes of the service', () => {
    expect(detailOf({ detail: 'Not authenticated' })).toBe('Not authenticated');
    const unprocessable = {
      detail: [{ loc: ['body', 'documents'], msg: 'List should have at most 3 items', type: 'too_long' }],
    };
    expect(detailOf(unprocessable)).toBe('body.documents: List should have at most 3 items');
    expect(validationIssuesOf(unprocessable)).toEqual([
      { loc: ['body', 'documents'], msg: 'List should have at most 3 items', type: 'too_long' },
    ]);
    expect(validationIssuesOf({ detail: 'x' })).toEqual([]);
    expect(detailOf('<html>Bad gateway</html>')).toBe('<html>Bad gateway</html>');
  });
});

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
      json(429, { detail: 'slow down' }, { 'retry-after': '0.2' }),
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
    expect((third?.at ?? 0) - (second?.at ?? 0)).toBeGreaterThanOrEqual(190);
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

  it('gives up on a closed port with ServerUnreachableError, naming the address and never the token', async () => {
    const port = await freePort();
    const client = new ApiClient({
      baseUrl: new URL(`http://user:pw@127.0.0.1:${port}/`),
      token: 'very-secret',
      retries: 1,
      retryBaseMs: 1,
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

describe('retryAfterMs', () => {
  it('reads seconds and HTTP dates, and caps long waits', () => {
    expect(retryAfterMs('3')).toBe(3000);
    expect(retryAfterMs(null)).toBeUndefined();
    expect(retryAfterMs('soon')).toBeUndefined();
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(retryAfterMs('Wed, 01 Jan 2025 00:00:05 GMT', now)).toBe(5000);
    expect(retryAfterMs('86400')).toBe(60_000);
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

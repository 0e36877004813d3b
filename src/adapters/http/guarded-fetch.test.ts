import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeHttpsServer } from '../../../test/helpers/fake-https-server.js';
import { SourceError } from '../source-error.js';
import { GuardedFetch, type GuardedFetchOptions } from './guarded-fetch.js';

interface SeenRequest {
  readonly method: string;
  readonly path: string;
  readonly host: string | undefined;
  readonly body: string;
}

/** A plain-http server on 127.0.0.1 whose answer each test sets. */
class LocalServer {
  readonly seen: SeenRequest[] = [];
  handler: (request: IncomingMessage, response: ServerResponse) => void = (_request, response) =>
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(): Promise<LocalServer> {
    let local: LocalServer | undefined;
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        local?.seen.push({
          method: request.method ?? '',
          path: request.url ?? '',
          host: request.headers.host,
          body: Buffer.concat(chunks).toString('utf8'),
        });
        local?.handler(request, response);
      });
      response.on('error', () => {});
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    local = new LocalServer(server, (server.address() as AddressInfo).port);
    return local;
  }

  url(path = '/', hostname = '127.0.0.1'): string {
    return `http://${hostname}:${this.port}${path}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const loopback = async () => [{ address: '127.0.0.1', family: 4 }];

function guarded(options: Partial<GuardedFetchOptions> = {}): GuardedFetch {
  return new GuardedFetch({
    allowPrivateNetwork: false,
    allowedHosts: [],
    trustedOrigins: [],
    timeoutMs: 2_000,
    maxResponseBytes: 1024 * 1024,
    sourceName: 'the wiki',
    ...options,
  });
}

async function failureOf(promise: Promise<unknown>): Promise<SourceError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(SourceError);
  return error as SourceError;
}

let server: LocalServer;

beforeAll(async () => {
  server = await LocalServer.start();
});

afterAll(async () => {
  await server.close();
});

afterEach(() => {
  server.seen.length = 0;
  server.handler = (_request, response) =>
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
});

describe('GuardedFetch address policy', () => {
  it('refuses a loopback address when private networks are not allowed, before connecting', async () => {
    const error = await failureOf(guarded({ allowPrivateNetwork: false }).request(server.url()));
    expect(error.failure).toBe('refused');
    expect(error.retryable).toBe(false);
    expect(server.seen).toHaveLength(0);
  });

  it('refuses an IPv6 loopback literal and a metadata address written as a URL host', async () => {
    for (const url of [
      'http://[::1]:8080/',
      'https://[::ffff:127.0.0.1]/',
      'http://169.254.169.254/latest/',
    ]) {
      const error = await failureOf(guarded({ allowPrivateNetwork: false }).request(url));
      expect(error.failure).toBe('refused');
    }
  });

  it('refuses a name that resolves to a private address, naming the host and the address', async () => {
    const client = guarded({ resolve: async () => [{ address: '10.1.2.3', family: 4 }] });
    const error = await failureOf(client.request('https://wiki.corp.example/rest/api/space/DOC'));
    expect(error.failure).toBe('refused');
    expect(error.message).toContain('wiki.corp.example');
    expect(error.message).toContain('10.1.2.3');
    expect(error.message).toContain('private');
  });

  it('refuses a name whose answer mixes public and private addresses (DNS rebinding)', async () => {
    const client = guarded({
      resolve: async () => [
        { address: '93.184.216.34', family: 4 },
        { address: '169.254.169.254', family: 4 },
      ],
    });
    const error = await failureOf(client.request('https://acme.example.com/'));
    expect(error.failure).toBe('refused');
    expect(error.message).toContain('169.254.169.254');
  });

  it('allows a loopback address with allowPrivateNetwork, over plain http', async () => {
    const response = await guarded({ allowPrivateNetwork: true }).request(server.url('/rest/api/space/DOC'));
    expect(response.status).toBe(200);
    expect(response.json()).toEqual({ ok: true });
    expect(server.seen[0]?.path).toBe('/rest/api/space/DOC');
  });

  it('allows a trusted origin on a private address, without the host list or private access', async () => {
    const client = guarded({ allowedHosts: ['*.atlassian.net'], trustedOrigins: [server.url('/wiki')] });
    const response = await client.request(server.url('/wiki/rest/api/space/DOC'));
    expect(response.status).toBe(200);
  });

  it('trusts only the exact origin: another port of the same host is refused', async () => {
    const client = guarded({ trustedOrigins: [`http://127.0.0.1:${server.port + 1}`] });
    const error = await failureOf(client.request(server.url()));
    expect(error.failure).toBe('refused');
  });

  it('refuses a host outside allowedHosts even with private access allowed', async () => {
    const client = guarded({ allowPrivateNetwork: true, allowedHosts: ['*.atlassian.net'] });
    const error = await failureOf(client.request(server.url()));
    expect(error.failure).toBe('refused');
    expect(error.message).toContain('127.0.0.1 is not among the hosts allowed for the wiki');
    expect(server.seen).toHaveLength(0);
  });

  it('connects to the address it checked, sending the name as Host', async () => {
    let lookups = 0;
    const client = guarded({
      allowPrivateNetwork: true,
      allowedHosts: ['*.atlassian.net'],
      resolve: async () => {
        lookups += 1;
        return loopback();
      },
    });
    const response = await client.request(server.url('/wiki/x', 'acme.atlassian.net'));
    expect(response.status).toBe(200);
    expect(lookups).toBe(1);
    expect(server.seen[0]?.host).toBe(`acme.atlassian.net:${server.port}`);
  });

  it('refuses plain http to a public address, even with private access allowed', async () => {
    const resolve = async () => [{ address: '93.184.216.34', family: 4 }];
    for (const allowPrivateNetwork of [false, true]) {
      const error = await failureOf(
        guarded({ allowPrivateNetwork, resolve }).request('http://wiki.example.com/rest/api/space/DOC'),
      );
      expect(error.failure).toBe('refused');
      expect(error.message).toContain('https');
    }
  });

  it('refuses schemes other than http and https, and addresses that are not URLs', async () => {
    expect((await failureOf(guarded().request('ftp://wiki.example.com/'))).failure).toBe('refused');
    expect((await failureOf(guarded().request('not a url'))).failure).toBe('refused');
  });

  it('check() applies the same policy without sending anything', async () => {
    await expect(guarded().check(server.url())).rejects.toMatchObject({ failure: 'refused' });
    await expect(guarded({ allowPrivateNetwork: true }).check(server.url())).resolves.toBeUndefined();
    expect(server.seen).toHaveLength(0);
  });
});

describe('GuardedFetch over https', () => {
  let tls: FakeHttpsServer;

  beforeAll(async () => {
    tls = await FakeHttpsServer.start({ hostnames: ['acme.atlassian.net'] });
  });

  afterAll(async () => {
    await tls.close();
  });

  it('pins the checked address and keeps SNI and the certificate check on the name', async () => {
    tls.respondWith({ body: { key: 'DOC' } });
    const client = guarded({ allowPrivateNetwork: true, ca: tls.ca, resolve: loopback });
    const response = await client.request(tls.url('/wiki/rest/api/space/DOC', 'acme.atlassian.net'));
    expect(response.json()).toEqual({ key: 'DOC' });
    expect(tls.requests.at(-1)?.headers.host).toBe(`acme.atlassian.net:${tls.port}`);
  });

  it('fails a certificate that does not name the host as bad_response, not retryable', async () => {
    const client = guarded({
      allowPrivateNetwork: true,
      ca: tls.ca,
      resolve: loopback,
    });
    const error = await failureOf(client.request(tls.url('/', 'other.example.test')));
    expect(error.failure).toBe('bad_response');
    expect(error.retryable).toBe(false);
  });

  it('returns a redirect to the caller instead of following it', async () => {
    tls.respondWith({ status: 302, redirect: 'http://169.254.169.254/latest/meta-data/' });
    const client = guarded({ allowPrivateNetwork: true, ca: tls.ca, resolve: loopback });
    const before = tls.requests.length;
    const response = await client.request(tls.url('/wiki', 'acme.atlassian.net'));
    expect(response.status).toBe(302);
    expect(response.headers.location).toBe('http://169.254.169.254/latest/meta-data/');
    expect(tls.requests.length).toBe(before + 1);
  });
});

describe('GuardedFetch limits', () => {
  const open = (options: Partial<GuardedFetchOptions> = {}) =>
    guarded({ allowPrivateNetwork: true, ...options });

  it('refuses an answer whose declared length is over maxResponseBytes', async () => {
    server.handler = (_request, response) => response.writeHead(200).end(Buffer.alloc(2048));
    const error = await failureOf(open({ maxResponseBytes: 1024 }).request(server.url()));
    expect(error.failure).toBe('too_large');
  });

  it('stops reading a chunked answer once it passes maxResponseBytes', async () => {
    server.handler = (_request, response) => {
      response.writeHead(200, { 'transfer-encoding': 'chunked' });
      for (let index = 0; index < 8; index += 1) response.write(Buffer.alloc(512));
      response.end();
    };
    const error = await failureOf(open({ maxResponseBytes: 1024 }).request(server.url()));
    expect(error.failure).toBe('too_large');
  });

  it('accepts an answer of exactly maxResponseBytes', async () => {
    server.handler = (_request, response) => response.writeHead(200).end(Buffer.alloc(1024));
    const response = await open({ maxResponseBytes: 1024 }).request(server.url());
    expect(response.body.length).toBe(1024);
  });

  it('times out a server that never answers', async () => {
    server.handler = () => {};
    const started = Date.now();
    const error = await failureOf(open({ timeoutMs: 200 }).request(server.url()));
    expect(error.failure).toBe('timeout');
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('did not answer within 200 ms');
    // The server never answers: only the client's own timer ends the wait, however late it fires.
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('times out a server that falls silent in the middle of its answer', async () => {
    server.handler = (_request, response) => {
      response.writeHead(200, { 'content-length': '100' });
      response.write('partial');
    };
    const error = await failureOf(open({ timeoutMs: 200 }).request(server.url()));
    expect(error.failure).toBe('timeout');
  });

  it('bounds the whole exchange with totalTimeoutMs, even for a server that keeps dripping', async () => {
    const timers: NodeJS.Timeout[] = [];
    server.handler = (_request, response) => {
      response.writeHead(200, { 'transfer-encoding': 'chunked' });
      const drip = setInterval(() => response.write('x'), 30);
      timers.push(drip);
      response.on('close', () => clearInterval(drip));
    };
    const error = await failureOf(open({ timeoutMs: 200, totalTimeoutMs: 400 }).request(server.url()));
    for (const timer of timers) clearInterval(timer);
    expect(error.failure).toBe('timeout');
    expect(error.message).toContain('400 ms');
  });

  it('rejects with the signal reason when aborted mid-request', async () => {
    server.handler = () => {};
    const controller = new AbortController();
    const reason = new Error('job cancelled');
    setTimeout(() => controller.abort(reason), 50);
    await expect(open().request(server.url(), { signal: controller.signal })).rejects.toBe(reason);
  });

  it('sends nothing when the signal is already aborted', async () => {
    const reason = new Error('already stopped');
    await expect(open().request(server.url(), { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect(server.seen).toHaveLength(0);
  });

  it('maps a refused connection to unavailable, which is retryable', async () => {
    const closed = await LocalServer.start();
    const url = closed.url();
    await closed.close();
    const error = await failureOf(open().request(url));
    expect(error.failure).toBe('unavailable');
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('ECONNREFUSED');
  });

  it('maps a name that does not resolve to unavailable', async () => {
    const client = open({
      resolve: async () => {
        throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
      },
    });
    const error = await failureOf(client.request('https://nowhere.example.test/'));
    expect(error.failure).toBe('unavailable');
    expect(error.message).toContain('nowhere.example.test');
  });
});

describe('GuardedFetch requests and answers', () => {
  const open = () => guarded({ allowPrivateNetwork: true });

  it('POSTs a body with its length', async () => {
    const response = await open().request(server.url('/submit'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    expect(response.status).toBe(200);
    expect(server.seen[0]).toMatchObject({ method: 'POST', path: '/submit', body: '{"a":1}' });
  });

  it('returns error statuses with their body, for the caller to interpret', async () => {
    server.handler = (_request, response) =>
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"statusCode":404}');
    const response = await open().request(server.url());
    expect(response.status).toBe(404);
    expect(response.json()).toEqual({ statusCode: 404 });
  });

  it('json() on something that is not JSON is bad_response', async () => {
    server.handler = (_request, response) =>
      response.writeHead(200, { 'content-type': 'text/html' }).end('<html>Log in</html>');
    const response = await open().request(server.url());
    const error = await failureOf(Promise.resolve().then(() => response.json()));
    expect(error.failure).toBe('bad_response');
    expect(error.message).toContain('text/html');
  });

  it('refuses a header value HTTP cannot carry without quoting it', async () => {
    const error = await failureOf(
      open().request(server.url(), { headers: { authorization: 'Bearer secret\nInjected: yes' } }),
    );
    expect(error.failure).toBe('bad_response');
    expect(error.message).not.toContain('secret');
    expect(server.seen).toHaveLength(0);
  });
});

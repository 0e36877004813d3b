import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, isIP } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FAKE_ALLOWLISTED_HOST, FakeHttpsServer } from '../../../../test/helpers/fake-https-server.js';
import { bearer, registerUser, startTestApp, type TestApp } from '../../../../test/helpers/test-app.js';
import { GuardedHttpsClient } from '../../../adapters/token-endpoint/guarded-https-client.js';
import type { TokenEndpointClient } from '../../../adapters/token-endpoint/token-endpoint-client.js';

// Values that must reach the provider and never a log line.
const CLIENT_ID = 'drive-client-id.apps.example';
const CLIENT_SECRET = 'drive-client-secret-5e1f0a9c';
const AUTHORIZATION = 'Basic YnJvd3Nlci1pZDpicm93c2VyLXNlY3JldC0zYzdk';
const CODE = 'authorization-code-8b2d4f';
const ACCESS_TOKEN = 'provider-access-token-1a6e';
const FORM = 'application/x-www-form-urlencoded';
const TIMEOUT_MS = 1000;
const MAX_RESPONSE_BYTES = 2048;

/** The token proxy request a browser sends, with a form-encoded authorization-code grant by default. */
function tokenRequest(
  endpoint: string,
  options: { headers?: Record<string, unknown>; body?: string | null } = {},
): Record<string, unknown> {
  return {
    endpoint,
    headers: { content_type: FORM, ...options.headers },
    body:
      options.body === undefined
        ? `grant_type=authorization_code&code=${CODE}&redirect_uri=https%3A%2F%2Fapp.example%2Fcallback`
        : options.body,
  };
}

function proxy(testApp: TestApp, payload: unknown, token: string | undefined) {
  return testApp.app.inject({
    method: 'POST',
    url: '/v1/oauth-proxy/token',
    headers: token === undefined ? {} : bearer(token),
    payload: payload as Record<string, unknown>,
  });
}

/** A 422 in FastAPI's shape with exactly this one problem (loc, msg and type: what spec part 7 fixes). */
function expectValidationError(
  response: LightMyRequestResponse,
  issue: { type: string; loc: (string | number)[]; msg: string },
): void {
  expect(response.statusCode).toBe(422);
  const body = response.json() as { detail: unknown[] };
  expect(Object.keys(body)).toEqual(['detail']);
  expect(body.detail).toHaveLength(1);
  expect(body.detail[0]).toMatchObject(issue);
}

/** A port on 127.0.0.1 that nothing listens on (it was free a moment ago). */
async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('POST /v1/oauth-proxy/token', () => {
  /** The allowlisted provider. */
  let provider: FakeHttpsServer;
  /** Where a redirect points: must never be reached. */
  let elsewhere: FakeHttpsServer;
  let caDirectory: string;
  let deadPort: number;

  /** Configured from the environment only: private networks allowed, the fakes' CA from a file. */
  let loopbackApp: TestApp;
  let loopbackToken: string;

  /** Private networks refused; the allowlisted name resolves to `resolvedAddresses`. */
  let guardedApp: TestApp;
  let guardedToken: string;
  let resolvedAddresses: string[];
  let guardedClient: TokenEndpointClient;
  const resolveFakeName = async (hostname: string) => {
    if (hostname !== FAKE_ALLOWLISTED_HOST) throw new Error(`unexpected lookup of ${hostname}`);
    return resolvedAddresses.map((address) => ({ address, family: isIP(address) }));
  };
  const guardedClientOptions = () => ({
    allowPrivateNetwork: false,
    timeoutMs: 5000,
    maxResponseBytes: 64 * 1024,
    ca: provider.ca,
    resolve: resolveFakeName,
  });

  beforeAll(async () => {
    [provider, elsewhere, deadPort] = await Promise.all([
      FakeHttpsServer.start(),
      FakeHttpsServer.start(),
      unusedPort(),
    ]);
    caDirectory = mkdtempSync(path.join(tmpdir(), 'oauth-proxy-test-'));
    const caFile = path.join(caDirectory, 'ca.pem');
    writeFileSync(caFile, provider.ca);
    // One after the other: two PGlite databases starting at once take twice as long as in turn.
    loopbackApp = await startTestApp({
      env: {
        OAUTH_PROXY_ALLOW_PRIVATE_NETWORK: 'true',
        OAUTH_PROXY_CA_FILE: caFile,
        OAUTH_PROXY_TIMEOUT_MS: String(TIMEOUT_MS),
        OAUTH_PROXY_MAX_RESPONSE_BYTES: String(MAX_RESPONSE_BYTES),
        OAUTH_PROXY_ALLOWLIST: [
          provider.url('/token'),
          `http://localhost:${provider.port}/token`,
          `https://localhost:${deadPort}/token`,
        ].join(','),
        OAUTH_PROXY_CLIENT_CREDENTIALS: JSON.stringify({
          googledrive: {
            client_id: CLIENT_ID,
            client_secret: CLIENT_SECRET,
            token_url: provider.url('/token'),
          },
          // No token_url: bound to Atlassian's token endpoint by default.
          wiki: { client_id: 'wiki-client-id', client_secret: 'wiki-client-secret-77aa' },
        }),
      },
    });
    guardedApp = await startTestApp({
      env: { OAUTH_PROXY_ALLOWLIST: provider.url('/token', FAKE_ALLOWLISTED_HOST) },
      // The real client, its settings switchable per test.
      overrides: { tokenEndpoint: { post: (request) => guardedClient.post(request) } },
    });
    [loopbackToken, guardedToken] = await Promise.all([
      registerUser(loopbackApp.app).then((user) => user.token),
      registerUser(guardedApp.app).then((user) => user.token),
    ]);
  });

  afterAll(async () => {
    await Promise.all([loopbackApp?.close(), guardedApp?.close(), provider?.close(), elsewhere?.close()]);
    if (caDirectory !== undefined) rmSync(caDirectory, { recursive: true, force: true });
  });

  beforeEach(() => {
    provider.reset();
    elsewhere.reset();
    resolvedAddresses = ['127.0.0.1'];
    guardedClient = new GuardedHttpsClient(guardedClientOptions());
  });

  describe('forwarding to an allowed endpoint', () => {
    it("returns the provider's status and JSON body and forwards the request as given", async () => {
      provider.respondWith({
        status: 200,
        body: { access_token: ACCESS_TOKEN, token_type: 'Bearer', expires_in: 3599 },
      });
      const response = await proxy(
        loopbackApp,
        tokenRequest(provider.url('/token'), {
          headers: { accept: 'application/json; charset=utf-8', authorization: AUTHORIZATION },
        }),
        loopbackToken,
      );
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ access_token: ACCESS_TOKEN, token_type: 'Bearer', expires_in: 3599 });
      const forwarded = provider.onlyRequest();
      expect(forwarded.method).toBe('POST');
      expect(forwarded.path).toBe('/token');
      expect(forwarded.headers['content-type']).toBe(FORM);
      expect(forwarded.headers.accept).toBe('application/json; charset=utf-8');
      expect(forwarded.headers.authorization).toBe(AUTHORIZATION);
      expect(forwarded.headers.host).toBe(`localhost:${provider.port}`);
      expect(forwarded.body).toBe(
        `grant_type=authorization_code&code=${CODE}&redirect_uri=https%3A%2F%2Fapp.example%2Fcallback`,
      );
      expect(forwarded.headers['content-length']).toBe(String(Buffer.byteLength(forwarded.body)));
    });

    it("asks for JSON by default and never forwards the caller's own bearer token", async () => {
      provider.respondWith({ body: { access_token: ACCESS_TOKEN } });
      const response = await proxy(loopbackApp, tokenRequest(provider.url('/token')), loopbackToken);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ access_token: ACCESS_TOKEN });
      const forwarded = provider.onlyRequest();
      expect(forwarded.headers.accept).toBe('application/json');
      expect(forwarded.headers.authorization).toBeUndefined();
      expect(JSON.stringify(forwarded)).not.toContain(loopbackToken);
    });

    it("returns a provider's 400 error with its body", async () => {
      provider.respondWith({
        status: 400,
        body: { error: 'invalid_grant', error_description: 'Bad Request' },
      });
      const response = await proxy(loopbackApp, tokenRequest(provider.url('/token')), loopbackToken);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ error: 'invalid_grant', error_description: 'Bad Request' });
      expect(provider.requests).toHaveLength(1);
    });

    // The route's own error schemas ({detail}) must not reshape a provider's error answer.
    it("returns a provider's 401 error with its body", async () => {
      provider.respondWith({ status: 401, body: { error: 'invalid_client' } });
      const response = await proxy(loopbackApp, tokenRequest(provider.url('/token')), loopbackToken);
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({ error: 'invalid_client' });
    });

    it('turns a form-encoded answer into JSON', async () => {
      provider.respondWith({
        headers: { 'content-type': FORM },
        body: `access_token=${ACCESS_TOKEN}&scope=repo&token_type=bearer`,
      });
      const response = await proxy(loopbackApp, tokenRequest(provider.url('/token')), loopbackToken);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ access_token: ACCESS_TOKEN, scope: 'repo', token_type: 'bearer' });
    });

    it('accepts an answer of exactly OAUTH_PROXY_MAX_RESPONSE_BYTES', async () => {
      const filler = 'x'.repeat(MAX_RESPONSE_BYTES - JSON.stringify({ access_token: '' }).length);
      provider.respondWith({ body: { access_token: filler } });
      const response = await proxy(loopbackApp, tokenRequest(provider.url('/token')), loopbackToken);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ access_token: filler });
    });
  });

  describe('client credentials for x_connector', () => {
    it('adds client_id and client_secret to a form body', async () => {
      provider.respondWith({ body: { access_token: ACCESS_TOKEN } });
      const response = await proxy(
        loopbackApp,
        tokenRequest(provider.url('/token'), { headers: { x_connector: 'googledrive' } }),
        loopbackToken,
      );
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ access_token: ACCESS_TOKEN });
      const forwarded = provider.onlyRequest();
      expect(forwarded.headers['content-type']).toBe(FORM);
      expect(Object.fromEntries(new URLSearchParams(forwarded.body))).toEqual({
        grant_type: 'authorization_code',
        code: CODE,
        redirect_uri: 'https://app.example/callback',
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
      });
    });

    it("replaces a browser's own client_secret and knows the connector's other names", async () => {
      provider.respondWith({ body: { access_token: ACCESS_TOKEN } });
      const response = await proxy(
        loopbackApp,
        tokenRequest(provider.url('/token'), {
          headers: { x_connector: 'Drive' },
          body: 'grant_type=refresh_token&refresh_token=r1&client_secret=from-the-browser',
        }),
        loopbackToken,
      );
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ access_token: ACCESS_TOKEN });
      expect(Object.fromEntries(new URLSearchParams(provider.onlyRequest().body))).toEqual({
        grant_type: 'refresh_token',
        refresh_token: 'r1',
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
      });
    });

    it('adds client_id and client_secret to a JSON body', async () => {
      provider.respondWith({ body: { access_token: ACCESS_TOKEN } });
      const response = await proxy(
        loopbackApp,
        tokenRequest(provider.url('/token'), {
          headers: { content_type: 'application/json; charset=utf-8', x_connector: 'googledrive' },
          body: JSON.stringify({ grant_type: 'authorization_code', code: CODE }),
        }),
        loopbackToken,
      );
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ access_token: ACCESS_TOKEN });
      const forwarded = provider.onlyRequest();
      expect(forwarded.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(JSON.parse(forwarded.body)).toEqual({
        grant_type: 'authorization_code',
        code: CODE,
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
      });
    });

    it('forwards the body unchanged for a connector without configured credentials', async () => {
      provider.respondWith({ body: { access_token: ACCESS_TOKEN } });
      const response = await proxy(
        loopbackApp,
        tokenRequest(provider.url('/token'), { headers: { x_connector: 'notion' }, body: 'code=abc' }),
        loopbackToken,
      );
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ access_token: ACCESS_TOKEN });
      expect(provider.onlyRequest().body).toBe('code=abc');
    });

    it('refuses with 403 credentials bound to another token endpoint, sending nothing', async () => {
      const response = await proxy(
        loopbackApp,
        tokenRequest(provider.url('/token'), { headers: { x_connector: 'confluence' } }),
        loopbackToken,
      );
      expect(response.statusCode).toBe(403);
      expect(response.json()).toEqual({
        detail: 'Refused: the wiki client credentials are not for this token endpoint',
      });
      expect(provider.requests).toEqual([]);
    });

    it('refuses with 400 to add credentials to a body that is neither a form nor JSON', async () => {
      const response = await proxy(
        loopbackApp,
        tokenRequest(provider.url('/token'), {
          headers: { content_type: 'text/plain', x_connector: 'google' },
        }),
        loopbackToken,
      );
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({
        detail: 'Client credentials can be added to form-encoded or JSON bodies only (headers.content_type)',
      });
      expect(provider.requests).toEqual([]);
    });
  });

  it.each([
    ['accept', { accept: 'application/jsön ✓' }],
    ['authorization', { authorization: `${AUTHORIZATION}\r\nx-injected: 1` }],
    ['content-type', { content_type: 'application/json\n' }],
  ])('answers 400 for a %s value HTTP headers cannot carry, sending nothing', async (name, headers) => {
    const response = await proxy(
      loopbackApp,
      tokenRequest(provider.url('/token'), { headers }),
      loopbackToken,
    );
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      detail: `The ${name} header cannot be sent: it holds characters that HTTP headers do not allow`,
    });
    expect(provider.requests).toEqual([]);
  });

  describe('refusals', () => {
    it('refuses with 403 a host that is not on the allowlist', async () => {
      const response = await proxy(
        loopbackApp,
        tokenRequest('https://evil.example.test/token'),
        loopbackToken,
      );
      expect(response.statusCode).toBe(403);
      expect(response.json()).toEqual({
        detail: "Refused: https://evil.example.test/token is not on the token proxy's allowlist",
      });
    });

    it('refuses with 403 another path or a query on an allowlisted host: the list holds exact URLs', async () => {
      for (const endpoint of [provider.url('/token/other'), provider.url('/token?next=/admin')]) {
        const response = await proxy(loopbackApp, tokenRequest(endpoint), loopbackToken);
        expect(response.statusCode).toBe(403);
        expect(response.json()).toEqual({
          detail: `Refused: https://localhost:${provider.port}${new URL(endpoint).pathname} is not on the token proxy's allowlist`,
        });
      }
      expect(provider.requests).toEqual([]);
    });

    it('refuses with 403 an http: endpoint, even one on the allowlist', async () => {
      const response = await proxy(
        loopbackApp,
        tokenRequest(`http://localhost:${provider.port}/token`),
        loopbackToken,
      );
      expect(response.statusCode).toBe(403);
      expect(response.json()).toEqual({ detail: 'Refused: only https token endpoints are allowed' });
      expect(provider.requests).toEqual([]);
    });

    it.each(['127.0.0.1', '10.0.0.1', '169.254.169.254', '::1', '::ffff:127.0.0.1'])(
      'refuses with 403 an allowlisted name that resolves to %s, sending nothing',
      async (address) => {
        resolvedAddresses = [address];
        const response = await proxy(
          guardedApp,
          tokenRequest(provider.url('/token', FAKE_ALLOWLISTED_HOST)),
          guardedToken,
        );
        expect(response.statusCode).toBe(403);
        expect(response.json()).toEqual({
          detail: `Refused: ${FAKE_ALLOWLISTED_HOST} resolves to ${address}, a private, loopback, link-local or reserved address`,
        });
        expect(provider.requests).toEqual([]);
      },
    );

    it('refuses a name with one private address among public ones (DNS rebinding)', async () => {
      resolvedAddresses = ['2606:4700::1111', '8.8.8.8', '127.0.0.1'];
      const response = await proxy(
        guardedApp,
        tokenRequest(provider.url('/token', FAKE_ALLOWLISTED_HOST)),
        guardedToken,
      );
      expect(response.statusCode).toBe(403);
      expect(response.json()).toEqual({
        detail: `Refused: ${FAKE_ALLOWLISTED_HOST} resolves to 127.0.0.1, a private, loopback, link-local or reserved address`,
      });
      expect(provider.requests).toEqual([]);
    });

    it('reaches that same name over TLS once private networks are allowed (control)', async () => {
      guardedClient = new GuardedHttpsClient({ ...guardedClientOptions(), allowPrivateNetwork: true });
      provider.respondWith({ body: { access_token: ACCESS_TOKEN } });
      const response = await proxy(
        guardedApp,
        tokenRequest(provider.url('/token', FAKE_ALLOWLISTED_HOST)),
        guardedToken,
      );
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ access_token: ACCESS_TOKEN });
      expect(provider.onlyRequest().headers.host).toBe(`${FAKE_ALLOWLISTED_HOST}:${provider.port}`);
    });

    it('answers 502 for a name that does not resolve', async () => {
      resolvedAddresses = [];
      const response = await proxy(
        guardedApp,
        tokenRequest(provider.url('/token', FAKE_ALLOWLISTED_HOST)),
        guardedToken,
      );
      expect(response.statusCode).toBe(502);
      expect(response.json()).toEqual({
        detail: `The token endpoint's host ${FAKE_ALLOWLISTED_HOST} could not be resolved`,
      });
    });

    it('answers 502 for a certificate it does not trust, sending nothing', async () => {
      const { ca: _trusted, ...withoutCa } = guardedClientOptions();
      guardedClient = new GuardedHttpsClient({ ...withoutCa, allowPrivateNetwork: true });
      const response = await proxy(
        guardedApp,
        tokenRequest(provider.url('/token', FAKE_ALLOWLISTED_HOST)),
        guardedToken,
      );
      expect(response.statusCode).toBe(502);
      expect(response.json()).toEqual({
        detail: expect.stringMatching(
          /^The token endpoint could not be reached \((SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT)\)$/,
        ),
      });
      expect(provider.requests).toEqual([]);
    });
  });

  describe('misbehaving endpoints', () => {
    it('does not follow a redirect: 502, and its target receives nothing', async () => {
      provider.respondWith({ status: 307, redirect: elsewhere.url('/token') });
      const response = await proxy(loopbackApp, tokenRequest(provider.url('/token')), loopbackToken);
      expect(response.statusCode).toBe(502);
      expect(response.json()).toEqual({
        detail: 'The token endpoint answered with a redirect (HTTP 307), which is not followed',
      });
      expect(provider.requests).toHaveLength(1);
      expect(elsewhere.requests).toEqual([]);
    });

    it('answers 504 when the endpoint is slower than OAUTH_PROXY_TIMEOUT_MS', async () => {
      provider.respondWith({ delayMs: TIMEOUT_MS * 4, body: { access_token: ACCESS_TOKEN } });
      const started = Date.now();
      const response = await proxy(loopbackApp, tokenRequest(provider.url('/token')), loopbackToken);
      expect(response.statusCode).toBe(504);
      expect(response.json()).toEqual({
        detail: `The token endpoint did not answer within ${TIMEOUT_MS} ms`,
      });
      expect(Date.now() - started).toBeLessThan(TIMEOUT_MS * 3);
    });

    it('answers 504 when the endpoint drips its answer past OAUTH_PROXY_TIMEOUT_MS', async () => {
      provider.respondWith({
        body: { access_token: ACCESS_TOKEN },
        drip: { bytes: 1, intervalMs: TIMEOUT_MS / 5 },
      });
      const started = Date.now();
      const response = await proxy(loopbackApp, tokenRequest(provider.url('/token')), loopbackToken);
      expect(response.statusCode).toBe(504);
      expect(response.json()).toEqual({
        detail: `The token endpoint did not answer within ${TIMEOUT_MS} ms`,
      });
      expect(Date.now() - started).toBeLessThan(TIMEOUT_MS * 3);
    });

    it('answers 502 when the answer exceeds OAUTH_PROXY_MAX_RESPONSE_BYTES', async () => {
      provider.respondWith({ body: { access_token: 'x'.repeat(MAX_RESPONSE_BYTES * 4) } });
      const response = await proxy(loopbackApp, tokenRequest(provider.url('/token')), loopbackToken);
      expect(response.statusCode).toBe(502);
      expect(response.json()).toEqual({
        detail: `The token endpoint's answer exceeded ${MAX_RESPONSE_BYTES} bytes`,
      });
    });

    it('answers 502 when nothing listens', async () => {
      const response = await proxy(
        loopbackApp,
        tokenRequest(`https://localhost:${deadPort}/token`),
        loopbackToken,
      );
      expect(response.statusCode).toBe(502);
      expect(response.json()).toEqual({ detail: 'The token endpoint could not be reached (ECONNREFUSED)' });
    });

    it('answers 502 when the answer is not JSON', async () => {
      provider.respondWith({
        status: 200,
        headers: { 'content-type': 'text/html' },
        body: '<html><body>Sign in</body></html>',
      });
      const response = await proxy(loopbackApp, tokenRequest(provider.url('/token')), loopbackToken);
      expect(response.statusCode).toBe(502);
      expect(response.json()).toEqual({
        detail: 'The token endpoint answered with a body that is not JSON',
      });
    });
  });

  describe('authentication and validation', () => {
    it('answers 401 without a bearer token, or with an unknown one, sending nothing', async () => {
      for (const token of [undefined, 'not-a-token']) {
        const response = await proxy(loopbackApp, tokenRequest(provider.url('/token')), token);
        expect(response.statusCode).toBe(401);
        expect(response.headers['www-authenticate']).toBe('Bearer');
        expect(response.json()).toEqual({ detail: 'Not authenticated' });
      }
      expect(provider.requests).toEqual([]);
    });

    it('answers 422 for a missing endpoint', async () => {
      const { endpoint: _endpoint, ...payload } = tokenRequest(provider.url('/token'));
      const response = await proxy(loopbackApp, payload, loopbackToken);
      expectValidationError(response, { type: 'missing', loc: ['body', 'endpoint'], msg: 'Field required' });
    });

    it('answers 422 for a missing headers.content_type', async () => {
      const payload = { endpoint: provider.url('/token'), headers: { accept: 'application/json' }, body: '' };
      const response = await proxy(loopbackApp, payload, loopbackToken);
      expectValidationError(response, {
        type: 'missing',
        loc: ['body', 'headers', 'content_type'],
        msg: 'Field required',
      });
    });

    it('answers 422 for an endpoint that is not a URL', async () => {
      const response = await proxy(loopbackApp, tokenRequest('not a url'), loopbackToken);
      expectValidationError(response, {
        type: 'url_parsing',
        loc: ['body', 'endpoint'],
        msg: 'Input should be a valid URL',
      });
      expect(provider.requests).toEqual([]);
    });
  });

  it('never logs the forwarded body, the client secret, the authorization value or the answer', async () => {
    // One answer that succeeds and one that fails (failures are logged), both carrying every secret.
    for (const answer of [
      { body: { access_token: ACCESS_TOKEN, refresh_token: `refresh-${ACCESS_TOKEN}` } },
      { headers: { 'content-type': 'text/plain' }, body: `access_token=${ACCESS_TOKEN} is not JSON` },
    ]) {
      provider.respondWith(answer);
      await proxy(
        loopbackApp,
        tokenRequest(provider.url('/token'), {
          headers: { authorization: AUTHORIZATION, x_connector: 'googledrive' },
        }),
        loopbackToken,
      );
    }
    expect(provider.requests).toHaveLength(2);
    expect(provider.requests.every((request) => request.body.includes(CLIENT_SECRET))).toBe(true);
    const lines = [...loopbackApp.logLines, ...guardedApp.logLines];
    // The check means something only if the proxy's failures do reach the log.
    expect(lines.some((line) => line.includes('upstream failure'))).toBe(true);
    for (const secret of [CODE, CLIENT_SECRET, AUTHORIZATION, ACCESS_TOKEN, loopbackToken, guardedToken]) {
      expect(lines.filter((line) => line.includes(secret))).toEqual([]);
    }
  });
});

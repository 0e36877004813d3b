import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, registerUser, startTestApp, type TestApp } from '../../test/helpers/test-app.js';

/** Sends raw bytes on one connection and collects whatever comes back until the server closes it. */
function rawExchange(
  port: number,
  chunks: { readonly bytes: string; readonly afterMs: number }[],
): Promise<{ response: string; elapsedMs: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1');
    let response = '';
    const timers: NodeJS.Timeout[] = [];
    socket.setEncoding('utf8');
    socket.on('data', (data) => {
      response += data;
    });
    socket.on('error', reject);
    socket.on('close', () => {
      for (const timer of timers) clearTimeout(timer);
      resolve({ response, elapsedMs: Date.now() - started });
    });
    for (const chunk of chunks) {
      timers.push(
        setTimeout(() => {
          if (!socket.destroyed) socket.write(chunk.bytes);
        }, chunk.afterMs),
      );
    }
  });
}

describe('request time-outs', () => {
  let testApp: TestApp;
  let port: number;
  beforeAll(async () => {
    testApp = await startTestApp({ env: { REQUEST_TIMEOUT_MS: '1500', CONNECTION_TIMEOUT_MS: '1000' } });
    await testApp.app.listen({ port: 0, host: '127.0.0.1' });
    port = (testApp.app.server.address() as { port: number }).port;
  });
  afterAll(() => testApp.close());

  it('cuts a body trickled byte by byte with 408 once REQUEST_TIMEOUT_MS has passed', async () => {
    const headers =
      'POST /v1/auth/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n';
    // One byte every 300 ms would take a minute; the whole request may take 1.5 s.
    const trickle = Array.from({ length: 200 }, (_, index) => ({ bytes: '{', afterMs: 300 * (index + 1) }));
    const { response, elapsedMs } = await rawExchange(port, [{ bytes: headers, afterMs: 0 }, ...trickle]);
    expect(response).toMatch(/^HTTP\/1\.1 408 /);
    expect(response).toContain('{"detail":"Request timeout"}');
    expect(elapsedMs).toBeGreaterThanOrEqual(1400);
    expect(elapsedMs).toBeLessThan(10_000);
  });

  it('closes a connection that sends nothing once CONNECTION_TIMEOUT_MS has passed', async () => {
    // Opened and left silent (what a slowloris client, or a crashed one, does): it is not held.
    const { response, elapsedMs } = await rawExchange(port, []);
    expect(response).toBe('');
    expect(elapsedMs).toBeGreaterThanOrEqual(900);
    expect(elapsedMs).toBeLessThan(8000);
  });

  it('leaves a request sent in time alone', async () => {
    const body = JSON.stringify({ email: 'nobody@example.com', password: 'not-a-password' });
    const { response } = await rawExchange(port, [
      {
        bytes: `POST /v1/auth/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: ${body.length}\r\n\r\n`,
        afterMs: 0,
      },
      { bytes: body, afterMs: 500 },
    ]);
    expect(response).toMatch(/^HTTP\/1\.1 401 /);
  });
});

describe('security headers and the docs page', () => {
  let open: TestApp;
  let closed: TestApp;
  beforeAll(async () => {
    open = await startTestApp();
    closed = await startTestApp({ env: { DOCS_PUBLIC: 'false' } });
  });
  afterAll(async () => {
    await open.close();
    await closed.close();
  });

  it('sends nosniff, a frame ban and a strict Content Security Policy with every response', async () => {
    const user = await registerUser(open.app);
    const responses = [
      await open.app.inject({ url: '/healthz' }),
      await open.app.inject({ url: '/v1/users/me', headers: bearer(user.token) }),
      await open.app.inject({ url: '/v1/users/me' }),
      await open.app.inject({ url: '/no/such/path' }),
      await open.app.inject({ method: 'POST', url: '/v1/auth/token', payload: 'not json' }),
      await open.app.inject({ url: '/docs/' }),
      await open.app.inject({ url: '/docs/static/swagger-ui-bundle.js' }),
      await open.app.inject({ url: '/openapi.json' }),
    ];
    expect(responses.map((response) => response.statusCode)).toEqual([
      200, 200, 401, 404, 422, 200, 200, 200,
    ]);
    for (const response of responses) {
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['x-frame-options']).toBe('SAMEORIGIN');
      const policy = String(response.headers['content-security-policy']);
      expect(policy).toContain("frame-ancestors 'none'");
      expect(policy).toContain("script-src 'self'");
      expect(policy).toContain("object-src 'none'");
      expect(policy).not.toContain('unsafe-inline');
    }
  });

  it('serves /docs and /openapi.json to anyone by default, and only to a signed-in caller with DOCS_PUBLIC=false', async () => {
    expect((await open.app.inject({ url: '/docs/' })).statusCode).toBe(200);
    for (const url of ['/docs/', '/docs/json', '/openapi.json']) {
      const anonymous = await closed.app.inject({ url });
      expect(anonymous.statusCode, url).toBe(401);
      expect(anonymous.json()).toEqual({ detail: 'Not authenticated' });
    }
    const user = await registerUser(closed.app);
    expect((await closed.app.inject({ url: '/openapi.json', headers: bearer(user.token) })).statusCode).toBe(
      200,
    );
    expect((await closed.app.inject({ url: '/docs/json', headers: bearer(user.token) })).statusCode).toBe(
      200,
    );
  });
});

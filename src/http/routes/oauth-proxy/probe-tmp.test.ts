import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, it } from 'vitest';
import { FakeHttpsServer } from '../../../../test/helpers/fake-https-server.js';
import { bearer, registerUser, startTestApp, type TestApp } from '../../../../test/helpers/test-app.js';

let provider: FakeHttpsServer;
let testApp: TestApp;
let token: string;
beforeAll(async () => {
  provider = await FakeHttpsServer.start();
  const dir = mkdtempSync(path.join(tmpdir(), 'ca-'));
  writeFileSync(path.join(dir, 'ca.pem'), provider.ca);
  testApp = await startTestApp({
    env: {
      OAUTH_PROXY_ALLOW_PRIVATE_NETWORK: 'true',
      OAUTH_PROXY_CA_FILE: path.join(dir, 'ca.pem'),
      OAUTH_PROXY_ALLOWLIST: provider.url('/token'),
      OAUTH_PROXY_TIMEOUT_MS: '1000',
    },
  });
  token = (await registerUser(testApp.app)).token;
});
afterAll(async () => {
  await testApp.close();
  await provider.close();
});
const call = () =>
  testApp.app.inject({
    method: 'POST',
    url: '/v1/oauth-proxy/token',
    headers: bearer(token),
    payload: {
      endpoint: provider.url('/token'),
      headers: { content_type: 'application/x-www-form-urlencoded' },
      body: 'a=b',
    },
  });
it('probe', async () => {
  for (const status of [200, 400, 401, 403, 422, 500, 502, 503]) {
    provider.respondWith({ status, body: { error: 'invalid_client', error_description: 'x' } });
    const r = await call();
    console.log(status, r.statusCode, r.body);
  }
  provider.respondWith({ status: 401, body: { detail: 'x', error: 'invalid_client' } });
  let r = await call();
  console.log('detail401', r.statusCode, r.body);
  provider.respondWith({ status: 200, body: ['a'] });
  r = await call();
  console.log('array', r.statusCode, r.body);
  provider.respondWith({ status: 200, body: 'null', headers: { 'content-type': 'application/json' } });
  r = await call();
  console.log('null', r.statusCode, r.body);
  provider.respondWith({ status: 200, body: '"str"', headers: { 'content-type': 'application/json' } });
  r = await call();
  console.log('string', r.statusCode, r.body);
  provider.respondWith({
    status: 200,
    body: 'access_token=abc&scope=x',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  r = await call();
  console.log('form', r.statusCode, r.body);
  provider.respondWith({ status: 204 });
  r = await call();
  console.log('204', r.statusCode, JSON.stringify(r.body));
  provider.respondWith({
    status: 200,
    body: 'x'.repeat(5000),
    headers: { 'content-type': 'text/plain' },
    delayMs: 0,
  });
  r = await call();
  console.log('text', r.statusCode, r.body);
  // drip: body in chunks each within timeout
  provider.respondWith((req) => ({ status: 200, body: {} }));
  console.log(testApp.logLines.slice(-5));
});

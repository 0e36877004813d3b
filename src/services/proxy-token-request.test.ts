import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeHttpsServer } from '../../test/helpers/fake-https-server.js';
import { startTestApp, type TestApp } from '../../test/helpers/test-app.js';
import { refusal } from '../../test/helpers/use-case-harness.js';
import { proxyTokenRequest, type TokenProxyInput } from './proxy-token-request.js';

const CLIENT_ID = 'proxy-test-client.apps.example';
const CLIENT_SECRET = 'proxy-test-client-secret-41f2';
const FORM = 'application/x-www-form-urlencoded';

describe('proxyTokenRequest', () => {
  let provider: FakeHttpsServer;
  let caDirectory: string;
  let testApp: TestApp;
  beforeAll(async () => {
    provider = await FakeHttpsServer.start();
    caDirectory = mkdtempSync(path.join(tmpdir(), 'proxy-token-request-'));
    const caFile = path.join(caDirectory, 'ca.pem');
    writeFileSync(caFile, provider.ca);
    testApp = await startTestApp({
      env: {
        OAUTH_PROXY_ALLOW_PRIVATE_NETWORK: 'true',
        OAUTH_PROXY_CA_FILE: caFile,
        OAUTH_PROXY_ALLOWLIST: [provider.url('/token'), provider.url('/other-token')].join(','),
        OAUTH_PROXY_CLIENT_CREDENTIALS: JSON.stringify({
          googledrive: {
            client_id: CLIENT_ID,
            client_secret: CLIENT_SECRET,
            token_url: provider.url('/token'),
          },
        }),
      },
    });
  });
  afterAll(async () => {
    await testApp.close();
    await provider.close();
    rmSync(caDirectory, { recursive: true, force: true });
  });
  beforeEach(() => provider.reset());

  const request = (endpoint: string, overrides: Partial<TokenProxyInput> = {}): TokenProxyInput => ({
    endpoint,
    headers: { content_type: FORM },
    body: 'grant_type=authorization_code&code=abc',
    ...overrides,
  });

  it('forwards the request to an allowlisted endpoint and answers the provider’s status and body', async () => {
    provider.respondWith({ status: 400, body: { error: 'invalid_grant' } });
    const answer = await proxyTokenRequest(testApp.runtime.deps, request(provider.url('/token')));
    expect(answer).toEqual({ status: 400, body: { error: 'invalid_grant' } });
    const forwarded = provider.onlyRequest();
    expect(forwarded).toMatchObject({
      method: 'POST',
      path: '/token',
      body: 'grant_type=authorization_code&code=abc',
    });
    expect(forwarded.headers.accept).toBe('application/json');
  });

  it('adds the named connector’s client credentials on the server side', async () => {
    provider.respondWith({ body: { access_token: 'ya29.new-token', expires_in: 3599 } });
    const answer = await proxyTokenRequest(
      testApp.runtime.deps,
      request(provider.url('/token'), { headers: { content_type: FORM, x_connector: 'Drive' } }),
    );
    expect(answer).toEqual({ status: 200, body: { access_token: 'ya29.new-token', expires_in: 3599 } });
    const form = new URLSearchParams(provider.onlyRequest().body);
    expect(Object.fromEntries(form)).toEqual({
      grant_type: 'authorization_code',
      code: 'abc',
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
    });
  });

  it('refuses endpoints off the allowlist, plain http, and credentials for another endpoint, sending nothing', async () => {
    const { deps } = testApp.runtime;
    const off = await refusal(proxyTokenRequest(deps, request(provider.url('/elsewhere'))), 'forbidden');
    expect(off.message).toContain('allowlist');
    await refusal(proxyTokenRequest(deps, request(`http://localhost:${provider.port}/token`)), 'forbidden');
    const misplaced = await refusal(
      proxyTokenRequest(
        deps,
        request(provider.url('/other-token'), {
          headers: { content_type: FORM, x_connector: 'googledrive' },
        }),
      ),
      'forbidden',
    );
    expect(misplaced.message).toContain('client credentials');
    expect(provider.requests).toEqual([]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryWiki } from '../../src/adapters/wiki/in-memory-wiki.js';
import { dumpAllTables } from '../helpers/database-dump.js';
import { bearer, startTestApp, type TestApp } from '../helpers/test-app.js';

const SECRETS = {
  access_token: 'ya29.PLAINTEXT-ACCESS-TOKEN-7f3a',
  refresh_token: '1//PLAINTEXT-REFRESH-TOKEN-9c2e',
  id_token: 'eyJPLAINTEXT.ID-TOKEN.5b1d',
  password: 'PLAINTEXT-PASSWORD-correct-horse',
  wikiApiToken: 'ATATT-PLAINTEXT-WIKI-TOKEN-33aa',
};

describe('secrets at rest and in logs', () => {
  let testApp: TestApp;
  let bearerToken: string;
  beforeAll(async () => {
    const wikiClient = new InMemoryWiki('https://acme.atlassian.net/wiki');
    wikiClient.acceptToken(SECRETS.wikiApiToken);
    wikiClient.addSpace('ENG', 'Engineering');
    testApp = await startTestApp({
      env: { WIKI_BASE_URL: 'https://acme.atlassian.net/wiki' },
      overrides: { wiki: wikiClient },
    });
    const registered = await testApp.app.inject({
      method: 'POST',
      url: '/v2/users/register',
      payload: {
        type: 'oauth',
        provider: 'google',
        provider_account_id: 'g-1',
        email: 'ann@acme.com',
        name: 'Ann',
        username: 'ann',
        access_token: SECRETS.access_token,
        refresh_token: SECRETS.refresh_token,
        id_token: SECRETS.id_token,
        password: SECRETS.password,
      },
    });
    expect(registered.statusCode).toBe(201);
    bearerToken = registered.json().access_token;
    const wiki = await testApp.app.inject({
      method: 'POST',
      url: '/v1/wiki/config',
      headers: bearer(bearerToken),
      payload: { wikiApiToken: SECRETS.wikiApiToken, wikiUsername: 'ann@acme.com', wikiSpaceKey: 'ENG' },
    });
    expect(wiki.statusCode).toBe(201);
    // A failed sign-in and a re-registration also pass secrets through the app.
    await testApp.app.inject({
      method: 'POST',
      url: '/v1/auth/token',
      payload: { username: 'ann', password: 'wrong' },
    });
    await testApp.app.inject({
      method: 'POST',
      url: '/v2/users/register',
      headers: bearer(bearerToken),
      payload: {
        type: 'oauth',
        provider: 'google',
        provider_account_id: 'g-1',
        email: 'ann@acme.com',
        name: 'Ann',
        access_token: SECRETS.access_token,
      },
    });
  });
  afterAll(() => testApp.close());

  it('stores no token, password or bearer token in plain text in any table', async () => {
    const dump = await dumpAllTables(testApp.runtime.database.db);
    for (const [name, secret] of Object.entries(SECRETS)) {
      expect(dump.includes(secret), `${name} found in a table`).toBe(false);
    }
    expect(dump.includes(bearerToken)).toBe(false);
    // The ciphertext is there, and opens with the key.
    expect(dump).toMatch(/"access_token_sealed":"v1\./);
    expect(dump).toMatch(/"password_hash":"scrypt\$/);
  });

  it('writes no secret to any log line', () => {
    expect(testApp.logLines.length).toBeGreaterThan(0);
    const logs = testApp.logLines.join('\n');
    for (const [name, secret] of Object.entries(SECRETS)) {
      expect(logs.includes(secret), `${name} found in the logs`).toBe(false);
    }
    expect(logs.includes(bearerToken)).toBe(false);
    // Every line is JSON with a request id when it belongs to a request.
    for (const line of testApp.logLines) {
      const entry = JSON.parse(line) as Record<string, unknown>;
      if (entry.req !== undefined || entry.res !== undefined)
        expect(entry.request_id).toEqual(expect.any(String));
    }
  });

  it('echoes a valid x-request-id and makes one up otherwise', async () => {
    const given = await testApp.app.inject({ url: '/healthz', headers: { 'x-request-id': 'abc-123' } });
    expect(given.headers['x-request-id']).toBe('abc-123');
    const invalid = await testApp.app.inject({
      url: '/healthz',
      headers: { 'x-request-id': 'bad id\nwith newline' },
    });
    expect(invalid.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

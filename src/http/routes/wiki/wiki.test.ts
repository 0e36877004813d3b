import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, registerUser, startTestApp, type TestApp } from '../../../../test/helpers/test-app.js';

describe('POST /v1/wiki/config', () => {
  let testApp: TestApp;
  let noDefault: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp({ env: { WIKI_BASE_URL: 'https://acme.atlassian.net/wiki' } });
    noDefault = await startTestApp();
  });
  afterAll(async () => {
    await testApp.close();
    await noDefault.close();
  });

  it("saves the team's wiki connector (201), replaces it on a new post (200), never returns the token", async () => {
    const user = await registerUser(testApp.app);
    const first = await testApp.app.inject({
      method: 'POST',
      url: '/v1/wiki/config',
      headers: bearer(user.token),
      payload: { wikiApiToken: 'token-one', wikiUsername: 'ann@acme.com', wikiSpaceKey: 'ENG' },
    });
    expect(first.statusCode).toBe(201);
    expect(first.json()).toMatchObject({
      slug: 'wiki',
      team_id: user.teamId,
      config: {
        base_url: 'https://acme.atlassian.net/wiki',
        space_key: 'ENG',
        username: 'ann@acme.com',
        auth_scheme: 'basic',
      },
    });
    expect(first.body).not.toContain('token-one');
    const second = await testApp.app.inject({
      method: 'POST',
      url: '/v1/wiki/config',
      headers: bearer(user.token),
      payload: {
        wikiApiToken: 'token-two',
        wikiUsername: 'ann',
        wikiSpaceKey: 'OPS',
        wikiBaseUrl: 'https://confluence.acme.internal/',
      },
    });
    expect(second.statusCode).toBe(200);
    expect(second.json()).toMatchObject({
      id: first.json().id,
      name: 'Confluence space OPS',
      config: { base_url: 'https://confluence.acme.internal', space_key: 'OPS', auth_scheme: 'bearer' },
    });
    expect(second.body).not.toContain('token-two');
    const me = await testApp.app.inject({ url: '/v1/users/me', headers: bearer(user.token) });
    expect(me.json().connectors).toEqual([{ name: 'wiki', id: [first.json().id] }]);
  });

  it('requires all three fields, listing each problem', async () => {
    const user = await registerUser(testApp.app);
    const response = await testApp.app.inject({
      method: 'POST',
      url: '/v1/wiki/config',
      headers: bearer(user.token),
      payload: { wikiUsername: 7 },
    });
    expect(response.statusCode).toBe(422);
    expect(response.json().detail).toEqual(
      expect.arrayContaining([
        { loc: ['body', 'wikiApiToken'], msg: 'Field required', type: 'missing' },
        { loc: ['body', 'wikiSpaceKey'], msg: 'Field required', type: 'missing' },
        { loc: ['body', 'wikiUsername'], msg: 'Input should be a valid string', type: 'string_type' },
      ]),
    );
    expect(response.json().detail).toHaveLength(3);
    const badUrl = await testApp.app.inject({
      method: 'POST',
      url: '/v1/wiki/config',
      headers: bearer(user.token),
      payload: { wikiApiToken: 't', wikiUsername: 'u', wikiSpaceKey: 'K', wikiBaseUrl: 'not a url' },
    });
    expect(badUrl.statusCode).toBe(422);
    expect(badUrl.json().detail[0]).toMatchObject({ loc: ['body', 'wikiBaseUrl'], type: 'url_parsing' });
  });

  it('asks for wikiBaseUrl when the server has no WIKI_BASE_URL', async () => {
    const user = await registerUser(noDefault.app);
    const response = await noDefault.app.inject({
      method: 'POST',
      url: '/v1/wiki/config',
      headers: bearer(user.token),
      payload: { wikiApiToken: 't', wikiUsername: 'u', wikiSpaceKey: 'K' },
    });
    expect(response.statusCode).toBe(422);
    expect(response.json().detail[0]).toMatchObject({ loc: ['body', 'wikiBaseUrl'], type: 'missing' });
  });

  it('needs a bearer token', async () => {
    const response = await testApp.app.inject({
      method: 'POST',
      url: '/v1/wiki/config',
      payload: { wikiApiToken: 't', wikiUsername: 'u', wikiSpaceKey: 'K' },
    });
    expect(response.statusCode).toBe(401);
  });
});

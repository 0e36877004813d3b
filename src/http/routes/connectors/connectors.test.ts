import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, registerUser, startTestApp, type TestApp } from '../../../../test/helpers/test-app.js';
import { InMemoryWiki } from '../../../adapters/wiki/in-memory-wiki.js';

describe('GET /v1/connectors/{connector_slug}/{connector_id}', () => {
  let testApp: TestApp;
  let owner: { token: string; teamId: number };
  let stranger: { token: string };
  let wikiId: number;
  beforeAll(async () => {
    const wiki = new InMemoryWiki('https://acme.atlassian.net/wiki');
    wiki.acceptToken('ATATT-secret-token');
    wiki.addSpace('ENG', 'Engineering');
    testApp = await startTestApp({
      env: { WIKI_BASE_URL: 'https://acme.atlassian.net/wiki' },
      overrides: { wiki },
    });
    owner = await registerUser(testApp.app);
    stranger = await registerUser(testApp.app);
    const saved = await testApp.app.inject({
      method: 'POST',
      url: '/v1/wiki/config',
      headers: bearer(owner.token),
      payload: { wikiApiToken: 'ATATT-secret-token', wikiUsername: 'ann@acme.com', wikiSpaceKey: 'ENG' },
    });
    wikiId = saved.json().id;
  });
  afterAll(() => testApp.close());

  it("answers the team's connector under its slug and aliases, without secrets", async () => {
    for (const slug of ['wiki', 'confluence', 'WIKI']) {
      const response = await testApp.app.inject({
        url: `/v1/connectors/${slug}/${wikiId}`,
        headers: bearer(owner.token),
      });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        id: wikiId,
        slug: 'wiki',
        name: 'Confluence space ENG',
        team_id: owner.teamId,
        created_at: expect.any(String),
        updated_at: expect.any(String),
        status: 'configured',
        last_synced_at: null,
        document_count: 0,
        files: [],
        config: {
          base_url: 'https://acme.atlassian.net/wiki',
          username: 'ann@acme.com',
          space_key: 'ENG',
          auth_scheme: 'basic',
        },
      });
      expect(response.body).not.toContain('ATATT-secret-token');
    }
  });

  it('answers 404 "Connector not found" alike for unknown slugs, unknown ids, wrong slugs and other teams', async () => {
    const cases = [
      [owner.token, `/v1/connectors/notion/${wikiId}`],
      [owner.token, '/v1/connectors/wiki/999999'],
      [owner.token, '/v1/connectors/wiki/abc'],
      [owner.token, '/v1/connectors/wiki/99999999999999999999'],
      [owner.token, `/v1/connectors/googledrive/${wikiId}`],
      [owner.token, `/v1/connectors/chatapp/${wikiId}`],
      [stranger.token, `/v1/connectors/wiki/${wikiId}`],
      [stranger.token, `/v1/connectors/confluence/${wikiId}`],
    ] as const;
    for (const [token, url] of cases) {
      const response = await testApp.app.inject({ url, headers: bearer(token) });
      expect(response.statusCode, url).toBe(404);
      expect(response.json()).toEqual({ detail: 'Connector not found' });
    }
  });

  it('needs a bearer token', async () => {
    const response = await testApp.app.inject({ url: `/v1/connectors/wiki/${wikiId}` });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ detail: 'Not authenticated' });
  });

  it("lists the team's connectors in /v1/users/me as {name, id: [ids]}", async () => {
    const me = await testApp.app.inject({ url: '/v1/users/me', headers: bearer(owner.token) });
    expect(me.json().connectors).toEqual([{ name: 'wiki', id: [wikiId] }]);
    const strangerMe = await testApp.app.inject({ url: '/v1/users/me', headers: bearer(stranger.token) });
    expect(strangerMe.json().connectors).toEqual([]);
  });
});

describe('GET /v1/connectors', () => {
  let testApp: TestApp;
  let owner: { token: string; teamId: number };
  let neighbour: { token: string; teamId: number };
  let wikiId: number;

  async function insertConnector(teamId: number, slug: string, name: string, externalId: string | null) {
    const { rows } = await testApp.runtime.database.sql.executeSql(
      `INSERT INTO connectors (team_id, slug, name, status, config, secrets_sealed, external_id)
       VALUES ($1, $2, $3, 'active', $4::jsonb, $5, $6) RETURNING id`,
      [teamId, slug, name, JSON.stringify({ note: name }), `sealed-${name}-secret`, externalId],
    );
    return Number(rows[0]?.id);
  }

  beforeAll(async () => {
    const wiki = new InMemoryWiki('https://acme.atlassian.net/wiki');
    wiki.acceptToken('ATATT-list-secret');
    wiki.addSpace('ENG', 'Engineering');
    testApp = await startTestApp({
      env: { WIKI_BASE_URL: 'https://acme.atlassian.net/wiki' },
      overrides: { wiki },
    });
    owner = await registerUser(testApp.app);
    neighbour = await registerUser(testApp.app);
    const saved = await testApp.app.inject({
      method: 'POST',
      url: '/v1/wiki/config',
      headers: bearer(owner.token),
      payload: { wikiApiToken: 'ATATT-list-secret', wikiUsername: 'ann@acme.com', wikiSpaceKey: 'ENG' },
    });
    expect(saved.statusCode, saved.body).toBe(201);
    wikiId = saved.json().id;
  });
  afterAll(() => testApp.close());

  it("lists the team's connectors of every kind, oldest first, each as GET one answers it, without secrets", async () => {
    const driveId = await insertConnector(owner.teamId, 'googledrive', 'Google Drive', null);
    const slackId = await insertConnector(owner.teamId, 'chatapp', 'Slack: Acme', `T-owner-${owner.teamId}`);
    const response = await testApp.app.inject({ url: '/v1/connectors', headers: bearer(owner.token) });
    expect(response.statusCode).toBe(200);
    const listed = response.json().connectors as { id: number; slug: string }[];
    expect(listed.map((connector) => [connector.slug, connector.id])).toEqual([
      ['wiki', wikiId],
      ['googledrive', driveId],
      ['chatapp', slackId],
    ]);
    for (const connector of listed) {
      const one = await testApp.app.inject({
        url: `/v1/connectors/${connector.slug}/${connector.id}`,
        headers: bearer(owner.token),
      });
      expect(connector).toEqual(one.json());
    }
    expect(listed[0]).toMatchObject({
      name: 'Confluence space ENG',
      status: 'configured',
      last_synced_at: null,
      config: { base_url: 'https://acme.atlassian.net/wiki', username: 'ann@acme.com', space_key: 'ENG' },
    });
    expect(response.body).not.toContain('ATATT-list-secret');
    expect(response.body).not.toContain('sealed-');
    expect(response.body).not.toContain('secrets');
  });

  it("never lists another team's connectors", async () => {
    const neighbourSlack = await insertConnector(
      neighbour.teamId,
      'chatapp',
      'Slack: Neighbours',
      `T-neighbour-${neighbour.teamId}`,
    );
    const mine = await testApp.app.inject({ url: '/v1/connectors', headers: bearer(owner.token) });
    expect(mine.json().connectors.map((connector: { id: number }) => connector.id)).not.toContain(
      neighbourSlack,
    );
    expect(mine.body).not.toContain('Neighbours');
    const theirs = await testApp.app.inject({ url: '/v1/connectors', headers: bearer(neighbour.token) });
    expect(theirs.json()).toEqual({
      connectors: [
        expect.objectContaining({ id: neighbourSlack, slug: 'chatapp', team_id: neighbour.teamId }),
      ],
      wiki_base_url_configured: true,
    });
    const newcomer = await registerUser(testApp.app);
    const empty = await testApp.app.inject({ url: '/v1/connectors', headers: bearer(newcomer.token) });
    expect(empty.statusCode).toBe(200);
    expect(empty.json()).toEqual({ connectors: [], wiki_base_url_configured: true });
  });

  it('says whether the server has a wiki address of its own (WIKI_BASE_URL), never the address', async () => {
    const response = await testApp.app.inject({ url: '/v1/connectors', headers: bearer(neighbour.token) });
    expect(response.json().wiki_base_url_configured).toBe(true);
    const withoutWiki = await startTestApp();
    try {
      const user = await registerUser(withoutWiki.app);
      const listed = await withoutWiki.app.inject({ url: '/v1/connectors', headers: bearer(user.token) });
      expect(listed.statusCode).toBe(200);
      expect(listed.json()).toEqual({ connectors: [], wiki_base_url_configured: false });
    } finally {
      await withoutWiki.close();
    }
    // A team without a wiki connector learns that there is one, not where.
    const newcomer = await registerUser(testApp.app);
    const fresh = await testApp.app.inject({ url: '/v1/connectors', headers: bearer(newcomer.token) });
    expect(fresh.body).not.toContain('acme.atlassian.net');
  });

  it('needs a bearer token or a session', async () => {
    const response = await testApp.app.inject({ url: '/v1/connectors' });
    expect(response.statusCode).toBe(401);
  });

  it('is described in the OpenAPI document', async () => {
    const document = (await testApp.app.inject({ url: '/openapi.json' })).json();
    const operation = document.paths['/v1/connectors'].get;
    expect(operation.responses['200']).toBeDefined();
    const listSchema = operation.responses['200'].content['application/json'].schema;
    expect(listSchema.properties.wiki_base_url_configured.type).toBe('boolean');
    expect(operation.security).toEqual(expect.arrayContaining([{ bearerAuth: [] }]));
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeConfluenceServer } from '../../../../test/fakes/fake-confluence-server.js';
import {
  bearer,
  registerUser,
  startTestApp,
  type TestApp,
  waitForJob,
} from '../../../../test/helpers/test-app.js';
import { GuardedFetch } from '../../../adapters/http/guarded-fetch.js';
import { ConfluenceClient } from '../../../adapters/wiki/confluence-client.js';

const PAGE = (topic: string) =>
  `<h1>${topic}</h1><p>How we handle ${topic.toLowerCase()}.</p><h2>Details</h2><p>The ${topic.toLowerCase()} details live here.</p>`;

describe('POST /v1/wiki/config and wiki syncs', () => {
  let cloud: FakeConfluenceServer;
  let datacenter: FakeConfluenceServer;
  let testApp: TestApp;
  let noDefault: TestApp;

  beforeAll(async () => {
    cloud = await FakeConfluenceServer.start({ flavour: 'cloud', username: 'ann@acme.com' });
    datacenter = await FakeConfluenceServer.start({ flavour: 'datacenter' });
    for (const server of [cloud, datacenter]) {
      server.addSpace('ENG', 'Engineering');
      server.setPageSize(2);
    }
    // WIKI_BASE_URL is trusted (an administrator set it); other wiki addresses must pass the policy.
    testApp = await startTestApp({
      env: cloud.serviceEnv(),
      worker: true,
    });
    noDefault = await startTestApp();
  });
  afterAll(async () => {
    await testApp.close();
    await noDefault.close();
    await cloud.close();
    await datacenter.close();
  });

  async function configure(app: TestApp, token: string, payload: Record<string, unknown>) {
    return app.app.inject({ method: 'POST', url: '/v1/wiki/config', headers: bearer(token), payload });
  }

  async function wikiConnectors(app: TestApp, teamId: number) {
    const { rows } = await app.runtime.database.sql.executeSql(
      `SELECT id, secrets_sealed FROM connectors WHERE team_id = $1 AND slug = 'wiki'`,
      [teamId],
    );
    return rows;
  }

  async function storedPages(teamId: number) {
    const { rows } = await testApp.runtime.database.sql.executeSql(
      `SELECT d.external_id, d.title, d.url, string_agg(c.text, ' ' ORDER BY c.position) AS text
       FROM documents d JOIN chunks c ON c.document_id = d.id
       WHERE d.team_id = $1 AND d.source = 'wiki' GROUP BY d.external_id, d.title, d.url ORDER BY d.external_id`,
      [teamId],
    );
    return rows as { external_id: string; title: string; url: string; text: string }[];
  }

  it('checks the Cloud credentials, saves the connector and indexes every page of the space', async () => {
    const pages = ['Onboarding', 'Deployments', 'Incidents', 'Security', 'Hiring'].map((title) =>
      cloud.putPage('ENG', { title, storageBody: PAGE(title) }),
    );
    const user = await registerUser(testApp.app);
    const response = await configure(testApp, user.token, {
      wikiApiToken: cloud.apiToken,
      wikiUsername: 'ann@acme.com',
      wikiSpaceKey: 'ENG',
    });
    expect(response.statusCode, response.body).toBe(201);
    const saved = response.json();
    expect(saved).toMatchObject({
      slug: 'wiki',
      team_id: user.teamId,
      result_ready: false,
      config: { base_url: cloud.baseUrl, space_key: 'ENG', username: 'ann@acme.com', auth_scheme: 'basic' },
    });
    expect(response.body).not.toContain(cloud.apiToken);
    const sealed = String((await wikiConnectors(testApp, user.teamId))[0]?.secrets_sealed);
    expect(sealed).not.toContain(cloud.apiToken);

    const job = await waitForJob(testApp.app, user.token, `/v1/jobs/${saved.result_id}`);
    expect(job.status).toBe('completed');
    expect(job.kind).toBe('wiki');
    expect(job.files.map((file) => file.status)).toEqual(pages.map(() => 'indexed'));
    const stored = await storedPages(user.teamId);
    expect(stored.map((page) => page.title).sort()).toEqual([
      'Deployments',
      'Hiring',
      'Incidents',
      'Onboarding',
      'Security',
    ]);
    const onboarding = stored.find((page) => page.title === 'Onboarding');
    expect(onboarding?.text).toContain('How we handle onboarding.');
    expect(onboarding?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/wiki\/spaces\/ENG\/pages\//);
    // Headings are kept: the chunk under "Details" carries it in its heading path.
    const { rows } = await testApp.runtime.database.sql.executeSql(
      `SELECT c.heading_path FROM chunks c JOIN documents d ON d.id = c.document_id
       WHERE d.team_id = $1 AND d.title = 'Onboarding'`,
      [user.teamId],
    );
    expect(rows.flatMap((row) => row.heading_path as string[])).toContain('Onboarding');

    const connector = await testApp.app.inject({
      url: `/v1/connectors/wiki/${saved.id}`,
      headers: bearer(user.token),
    });
    expect(connector.json().files).toHaveLength(5);
    expect(connector.json().last_synced_at).not.toBeNull();

    // A later sync fetches only changed pages and removes pages that are gone.
    const [first, second, third] = pages;
    cloud.putPage('ENG', {
      id: first?.id,
      title: 'Onboarding',
      storageBody: PAGE('Onboarding v2'),
    });
    cloud.removePage(second?.id as string);
    cloud.putPage('ENG', { title: 'Runbooks', storageBody: PAGE('Runbooks') });
    cloud.requests.length = 0;
    const sync = await testApp.app.inject({
      method: 'POST',
      url: `/v1/connectors/wiki/${saved.id}/sync`,
      headers: bearer(user.token),
    });
    expect(sync.statusCode).toBe(202);
    const synced = await waitForJob(testApp.app, user.token, `/v1/jobs/${sync.json().result_id}`);
    const byId = Object.fromEntries(synced.files.map((file) => [file.id as string, file]));
    expect(byId[first?.id as string]).toMatchObject({ status: 'indexed' });
    expect(byId[third?.id as string]).toMatchObject({ status: 'skipped', reason: 'unchanged' });
    const fetched = cloud.requests
      .map((request) => request.apiPath)
      .filter((path) => /^\/rest\/api\/content\/\d+$/.test(path));
    expect(fetched).toHaveLength(2);
    const after = await storedPages(user.teamId);
    expect(after.map((page) => page.title).sort()).toEqual([
      'Hiring',
      'Incidents',
      'Onboarding',
      'Runbooks',
      'Security',
    ]);
    expect(after.find((page) => page.title === 'Onboarding')?.text).toContain('onboarding v2');

    const foreign = await registerUser(testApp.app);
    const foreignSync = await testApp.app.inject({
      method: 'POST',
      url: `/v1/connectors/wiki/${saved.id}/sync`,
      headers: bearer(foreign.token),
    });
    expect(foreignSync.statusCode).toBe(404);
  });

  it('supports Data Center with a personal access token (bearer), and replaces the config (200)', async () => {
    datacenter.putPage('ENG', { title: 'On call', storageBody: PAGE('On call') });
    const user = await registerUser(testApp.app);
    const first = await configure(testApp, user.token, {
      wikiApiToken: datacenter.apiToken,
      wikiUsername: '',
      wikiSpaceKey: 'ENG',
      wikiBaseUrl: datacenter.baseUrl,
    });
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json().config.auth_scheme).toBe('bearer');
    const job = await waitForJob(testApp.app, user.token, `/v1/jobs/${first.json().result_id}`);
    expect(job.files).toEqual([expect.objectContaining({ name: 'On call', status: 'indexed' })]);
    const bearerSent = datacenter.requests.some((request) =>
      String(request.headers.authorization).startsWith('Bearer '),
    );
    expect(bearerSent).toBe(true);
    const second = await configure(testApp, user.token, {
      wikiApiToken: cloud.apiToken,
      wikiUsername: 'ann@acme.com',
      wikiSpaceKey: 'ENG',
    });
    expect(second.statusCode).toBe(200);
    expect(second.json().id).toBe(first.json().id);
  });

  it('uses bearer without a username, even for a Data Center under /wiki; basic only for Cloud with one', async () => {
    const underWiki = await FakeConfluenceServer.start({ flavour: 'datacenter', contextPath: '/wiki' });
    try {
      underWiki.addSpace('OPS', 'Operations');
      underWiki.putPage('OPS', { title: 'Runbook', storageBody: PAGE('Runbook') });
      expect(underWiki.baseUrl).toMatch(/\/wiki$/);
      const user = await registerUser(testApp.app);
      const saved = await configure(testApp, user.token, {
        wikiApiToken: underWiki.apiToken,
        wikiUsername: '',
        wikiSpaceKey: 'OPS',
        wikiBaseUrl: underWiki.baseUrl,
      });
      expect(saved.statusCode, saved.body).toBe(201);
      expect(saved.json().config).toMatchObject({ base_url: underWiki.baseUrl, auth_scheme: 'bearer' });
      const job = await waitForJob(testApp.app, user.token, `/v1/jobs/${saved.json().result_id}`);
      expect(job.files).toEqual([expect.objectContaining({ name: 'Runbook', status: 'indexed' })]);
      expect(underWiki.requests.length).toBeGreaterThan(0);
      expect(
        underWiki.requests.every(
          (request) => request.headers.authorization === `Bearer ${underWiki.apiToken}`,
        ),
      ).toBe(true);

      // A username for a Data Center address changes nothing: its token is a personal access token.
      const other = await registerUser(testApp.app);
      const named = await configure(testApp, other.token, {
        wikiApiToken: datacenter.apiToken,
        wikiUsername: 'ann',
        wikiSpaceKey: 'ENG',
        wikiBaseUrl: datacenter.baseUrl,
      });
      expect(named.statusCode, named.body).toBe(201);
      expect(named.json().config.auth_scheme).toBe('bearer');
    } finally {
      await underWiki.close();
    }
  });

  it('refuses rejected credentials and an unknown space with a clear 400, saving nothing', async () => {
    const user = await registerUser(testApp.app);
    const badToken = await configure(testApp, user.token, {
      wikiApiToken: 'not-the-token',
      wikiUsername: 'ann@acme.com',
      wikiSpaceKey: 'ENG',
    });
    expect(badToken.statusCode).toBe(400);
    expect(badToken.json().detail).toMatch(/credentials rejected/i);
    expect(badToken.body).not.toContain('not-the-token');
    const unknownSpace = await configure(testApp, user.token, {
      wikiApiToken: cloud.apiToken,
      wikiUsername: 'ann@acme.com',
      wikiSpaceKey: 'NOPE',
    });
    expect(unknownSpace.statusCode).toBe(400);
    expect(unknownSpace.json().detail).toMatch(/space not found.*NOPE/i);
    expect(await wikiConnectors(testApp, user.teamId)).toEqual([]);
    const me = await testApp.app.inject({ url: '/v1/users/me', headers: bearer(user.token) });
    expect(me.json().connectors).toEqual([]);
  });

  it('refuses a wiki address on a private network unless the server allows it', async () => {
    const user = await registerUser(noDefault.app);
    const response = await configure(noDefault, user.token, {
      wikiApiToken: datacenter.apiToken,
      wikiUsername: '',
      wikiSpaceKey: 'ENG',
      wikiBaseUrl: datacenter.baseUrl,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().detail).toMatch(/not allowed/i);
    expect(await wikiConnectors(noDefault, user.teamId)).toEqual([]);
  });

  it('requires all three fields, listing each problem', async () => {
    const user = await registerUser(testApp.app);
    const response = await configure(testApp, user.token, { wikiUsername: 7 });
    expect(response.statusCode).toBe(422);
    expect(response.json().detail).toEqual(
      expect.arrayContaining([
        { loc: ['body', 'wikiApiToken'], msg: 'Field required', type: 'missing' },
        { loc: ['body', 'wikiSpaceKey'], msg: 'Field required', type: 'missing' },
        { loc: ['body', 'wikiUsername'], msg: 'Input should be a valid string', type: 'string_type' },
      ]),
    );
    expect(response.json().detail).toHaveLength(3);
    const badUrl = await configure(testApp, user.token, {
      wikiApiToken: 't',
      wikiUsername: 'u',
      wikiSpaceKey: 'K',
      wikiBaseUrl: 'not a url',
    });
    expect(badUrl.statusCode).toBe(422);
    expect(badUrl.json().detail[0]).toMatchObject({ loc: ['body', 'wikiBaseUrl'], type: 'url_parsing' });
  });

  it('asks for wikiBaseUrl when the server has no WIKI_BASE_URL', async () => {
    const user = await registerUser(noDefault.app);
    const response = await configure(noDefault, user.token, {
      wikiApiToken: 't',
      wikiUsername: 'u',
      wikiSpaceKey: 'K',
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

  describe('a Confluence Cloud site given without /wiki', () => {
    let cloudApp: TestApp;

    beforeAll(async () => {
      // *.atlassian.net names resolve to the fake Cloud server, so the address is a real Cloud one.
      const http = new GuardedFetch({
        allowPrivateNetwork: true,
        allowedHosts: ['*.atlassian.net'],
        trustedOrigins: [],
        timeoutMs: 5_000,
        maxResponseBytes: 1024 * 1024,
        sourceName: 'the wiki',
        resolve: async (hostname) => {
          if (!hostname.endsWith('.atlassian.net')) throw new Error(`unexpected lookup of ${hostname}`);
          return [{ address: '127.0.0.1', family: 4 }];
        },
      });
      cloudApp = await startTestApp({ overrides: { wiki: new ConfluenceClient({ http }) } });
    });
    afterAll(async () => {
      await cloudApp.close();
    });

    it('talks to <origin>/wiki with e-mail + API token (basic) and stores that address', async () => {
      const port = new URL(cloud.baseUrl).port;
      const before = cloud.requests.length;
      const user = await registerUser(cloudApp.app);
      const response = await configure(cloudApp, user.token, {
        wikiApiToken: cloud.apiToken,
        wikiUsername: 'ann@acme.com',
        wikiSpaceKey: 'ENG',
        wikiBaseUrl: `http://acme.atlassian.net:${port}/`,
      });
      expect(response.statusCode, response.body).toBe(201);
      expect(response.json().config).toMatchObject({
        base_url: `http://acme.atlassian.net:${port}/wiki`,
        username: 'ann@acme.com',
        auth_scheme: 'basic',
      });
      // Only this app's requests: the other app's worker may sync its Cloud connectors meanwhile.
      const sent = cloud.requests
        .slice(before)
        .filter((request) => request.headers.host?.endsWith(`.atlassian.net:${port}`));
      expect(sent.map((request) => [request.url, request.status])).toEqual([
        ['/wiki/rest/api/space/ENG', 200],
      ]);
      expect(sent[0]?.headers.authorization).toMatch(/^Basic /);
    });
  });
});

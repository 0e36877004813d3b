import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { type SQL, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeSlackServer } from '../../../../test/fakes/fake-slack-server.js';
import {
  bearer,
  joinedMember,
  registerUser,
  registrationRecord,
  startTestApp,
  TEST_REGISTRATION_SECRET,
  type TestApp,
  uniqueSuffix,
} from '../../../../test/helpers/test-app.js';

const CLIENT_ID = '1111111111.2222222222';
const CLIENT_SECRET = 'fake-slack-client-secret-0123456789';

let counter = 0;

/** A registration record for a fresh user, with the given fields on top. */
function registration(fields: Record<string, unknown> = {}): Record<string, unknown> {
  counter += 1;
  const unique = `${process.pid}-${counter}-${Math.random().toString(36).slice(2, 8)}`;
  return {
    type: 'oauth',
    provider: 'google',
    provider_account_id: `slack-test-${unique}`,
    email: `slack-${unique}@example.com`,
    name: `Slack User ${unique}`,
    ...fields,
  };
}

async function register(testApp: TestApp, payload: Record<string, unknown>) {
  return testApp.app.inject({ method: 'POST', url: '/v2/users/register', payload });
}

async function rowsOf(testApp: TestApp, query: SQL): Promise<Record<string, unknown>[]> {
  const result = (await testApp.runtime.database.db.execute(query)) as unknown as {
    rows: Record<string, unknown>[];
  };
  return result.rows;
}

/** Every row of every table in the database, keyed by `schema.table`. */
async function dumpDatabase(testApp: TestApp): Promise<Record<string, Record<string, unknown>[]>> {
  const tables = await rowsOf(
    testApp,
    sql`select table_schema, table_name from information_schema.tables
        where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema')
        order by 1, 2`,
  );
  const dump: Record<string, Record<string, unknown>[]> = {};
  for (const table of tables) {
    const schema = String(table.table_schema);
    const name = String(table.table_name);
    dump[`${schema}.${name}`] = await rowsOf(
      testApp,
      sql`select * from ${sql.identifier(schema)}.${sql.identifier(name)}`,
    );
  }
  return dump;
}

/** JSON that shows bigints and byte columns as text, so a token stored in either would be found. */
function searchableJson(value: unknown): string {
  return JSON.stringify(value, function replace(this: Record<string, unknown>, key, current: unknown) {
    const original = key === '' ? current : this[key];
    if (typeof original === 'bigint') return original.toString();
    if (original instanceof Uint8Array) return Buffer.from(original).toString('utf8');
    return current;
  });
}

async function rowCounts(testApp: TestApp): Promise<Record<string, number>> {
  const dump = await dumpDatabase(testApp);
  return Object.fromEntries(Object.entries(dump).map(([table, rows]) => [table, rows.length]));
}

async function usersWithEmail(testApp: TestApp, email: string): Promise<number> {
  const rows = await rowsOf(testApp, sql`select id from users where email = ${email.toLowerCase()}`);
  return rows.length;
}

/** A URL on which nothing listens: a port that was free a moment ago. */
async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/api/`;
}

interface ChatappBody {
  chatapp?: {
    status: string;
    detail?: string;
    connector_id?: number;
    slack_team_id?: string;
    slack_team_name?: string | null;
  };
  access_token: string;
  user: { id: number; team_id: number };
}

describe('registration with a Slack chatappCode', () => {
  let fake: FakeSlackServer;
  let testApp: TestApp;

  beforeAll(async () => {
    fake = await FakeSlackServer.start();
    fake.registerApp({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, appId: 'A0KNOWLEDGE' });
    testApp = await startTestApp({
      env: { SLACK_CLIENT_ID: CLIENT_ID, SLACK_CLIENT_SECRET: CLIENT_SECRET, SLACK_API_URL: fake.url },
    });
  });
  afterAll(async () => {
    await testApp?.close();
    await fake?.close();
  });

  describe('with a valid code', () => {
    const code = 'valid-code-acme-0001';
    let installation: ReturnType<FakeSlackServer['issueCode']>;
    let body: ChatappBody;
    let connectorId: number;

    beforeAll(async () => {
      installation = fake.issueCode(code, CLIENT_ID, { teamId: 'T0ACME0001', teamName: 'Acme' });
      const response = await register(testApp, registration({ chatappCode: code }));
      expect(response.statusCode, response.body).toBe(201);
      expect(response.body).not.toContain(installation.botToken);
      body = response.json() as ChatappBody;
      connectorId = body.chatapp?.connector_id ?? -1;
    });

    it('exchanges it with oauth.v2.access and reports the installation (201)', () => {
      expect(body.chatapp).toEqual({
        status: 'installed',
        connector_id: expect.any(Number),
        slack_team_id: 'T0ACME0001',
        slack_team_name: 'Acme',
      });
      const exchanges = fake.callsTo('oauth.v2.access');
      expect(exchanges).toHaveLength(1);
      expect(exchanges[0]?.body).toMatchObject({ client_id: CLIENT_ID, client_secret: CLIENT_SECRET, code });
      expect(exchanges[0]?.headers['content-type']).toContain('application/x-www-form-urlencoded');
    });

    it('lists the chatapp connector in /v1/users/me', async () => {
      const response = await testApp.app.inject({ url: '/v1/users/me', headers: bearer(body.access_token) });
      expect(response.statusCode).toBe(200);
      const me = response.json() as { team_id: number; connectors: { name: string; id: number[] }[] };
      expect(me.team_id).toBe(body.user.team_id);
      expect(me.connectors).toContainEqual({ name: 'chatapp', id: [connectorId] });
    });

    it.each(['chatapp', 'slack'])(
      'shows it at /v1/connectors/%s/{id} without the bot token',
      async (slug) => {
        const response = await testApp.app.inject({
          url: `/v1/connectors/${slug}/${connectorId}`,
          headers: bearer(body.access_token),
        });
        expect(response.statusCode).toBe(200);
        expect(response.body).not.toContain(installation.botToken);
        expect(response.body).not.toContain('xoxb-');
        const connector = response.json() as { id: number; slug: string; team_id: number; config: unknown };
        expect(connector).toMatchObject({ id: connectorId, slug: 'chatapp', team_id: body.user.team_id });
        expect(connector.config).toMatchObject({
          slack_team_id: 'T0ACME0001',
          bot_user_id: installation.botUserId,
        });
      },
    );

    it('stores the bot token only encrypted: in no table and no log line in plain text', async () => {
      const dump = await dumpDatabase(testApp);
      expect(Object.keys(dump)).toContain('public.connectors');
      expect(searchableJson(dump)).not.toContain(installation.botToken);
      expect(testApp.logLines.length).toBeGreaterThan(0);
      expect(testApp.logLines.join('\n')).not.toContain(installation.botToken);
      // It is stored, though: sealed, and opens with the server's key.
      const [row] = await rowsOf(
        testApp,
        sql`select secrets_sealed from connectors where id = ${connectorId}`,
      );
      const sealed = String(row?.secrets_sealed);
      expect(testApp.runtime.deps.secrets.openJson(sealed)).toEqual({ bot_token: installation.botToken });
    });

    it('refuses the same workspace for a second team with 409 and creates nothing for that user', async () => {
      const again = fake.issueCode('valid-code-acme-0002', CLIENT_ID, {
        teamId: 'T0ACME0001',
        teamName: 'Acme',
      });
      const before = await rowCounts(testApp);
      const second = registration({ chatappCode: 'valid-code-acme-0002' });
      const response = await register(testApp, second);
      expect(response.statusCode, response.body).toBe(409);
      expect(response.json()).toEqual({ detail: expect.stringContaining('Slack workspace') });
      expect(response.body).not.toContain(again.botToken);
      expect(await rowCounts(testApp)).toEqual(before);
      expect(await usersWithEmail(testApp, String(second.email))).toBe(0);
      // The first team keeps its installation, and the second token was not stored in its place.
      const [row] = await rowsOf(
        testApp,
        sql`select team_id, secrets_sealed from connectors where id = ${connectorId}`,
      );
      expect(row?.team_id).toBe(body.user.team_id);
      expect(testApp.runtime.deps.secrets.openJson(String(row?.secrets_sealed))).toEqual({
        bot_token: installation.botToken,
      });
    });
  });

  // Issue 32: the bot answers anyone in its workspace from the team's team-wide documents, and
  // outlives whoever installed it, so a member's code must not install it through registration.
  describe('only for an owner or admin of the team', () => {
    const exchangesOf = (code: string) =>
      fake.callsTo('oauth.v2.access').filter((call) => call.body.code === code);
    const installedIn = async (workspace: string) =>
      (await rowsOf(testApp, sql`select team_id from connectors where external_id = ${workspace}`)).map(
        (row) => Number(row.team_id),
      );
    const emailOf = async (token: string) =>
      (
        (await testApp.app.inject({ url: '/v1/users/me', headers: bearer(token) })).json() as {
          email: string;
        }
      ).email;
    const invite = async (ownerToken: string, email: string, role: 'member' | 'admin') => {
      const response = await testApp.app.inject({
        method: 'POST',
        url: '/v1/teams/invitations',
        headers: bearer(ownerToken),
        payload: { email, role },
      });
      expect(response.statusCode, response.body).toBe(201);
      return (response.json() as { code: string }).code;
    };

    it("refuses a member's own re-registration with a chatappCode: 403, Slack not asked, nothing installed", async () => {
      const owner = await registerUser(testApp.app);
      const memberToken = await joinedMember(testApp.app, owner.token);
      const email = await emailOf(memberToken);
      const code = `member-code-${uniqueSuffix()}`;
      fake.issueCode(code, CLIENT_ID, { teamId: 'T0MEMBER01', teamName: 'Member workspace' });
      const before = await rowCounts(testApp);

      // The attack: the member's own token with Slack's code.
      const attack = await testApp.app.inject({
        method: 'POST',
        url: '/v2/users/register',
        headers: bearer(memberToken),
        payload: { email, password: 'member-password', chatappCode: code },
      });
      expect(attack.statusCode, attack.body).toBe(403);
      expect((attack.json() as { detail: string }).detail).toContain('owner and admins');
      expect(exchangesOf(code)).toHaveLength(0);
      expect(await installedIn('T0MEMBER01')).toEqual([]);
      expect(await rowCounts(testApp)).toEqual(before);

      // The code was not spent: the team's owner installs the bot with it.
      const byOwner = await testApp.app.inject({
        method: 'POST',
        url: '/v1/chatapp/install',
        headers: bearer(owner.token),
        payload: { code },
      });
      expect(byOwner.statusCode, byOwner.body).toBe(200);
      expect(await installedIn('T0MEMBER01')).toEqual([owner.teamId]);
    });

    it("refuses a member's password proof and the front end's secret for a member alike", async () => {
      const owner = await registerUser(testApp.app);
      const memberToken = await joinedMember(testApp.app, owner.token);
      const code = `member-code-${uniqueSuffix()}`;
      fake.issueCode(code, CLIENT_ID, { teamId: 'T0MEMBER02' });
      const byPassword = await register(testApp, {
        email: await emailOf(memberToken),
        password: 'member-password',
        chatappCode: code,
      });
      expect(byPassword.statusCode, byPassword.body).toBe(403);

      // A verified member, signed in by the trusted front end.
      const email = `verified-member-${uniqueSuffix()}@example.com`;
      const record = registrationRecord(email);
      const joined = await testApp.app.inject({
        method: 'POST',
        url: '/v2/users/register',
        headers: bearer(TEST_REGISTRATION_SECRET),
        payload: { ...record, invitation: await invite(owner.token, email, 'member') },
      });
      expect(joined.statusCode, joined.body).toBe(201);
      expect(joined.json()).toMatchObject({ user: { role: 'member' }, email_verification: 'verified' });
      const trusted = await testApp.app.inject({
        method: 'POST',
        url: '/v2/users/register',
        headers: bearer(TEST_REGISTRATION_SECRET),
        payload: { ...record, chatappCode: code },
      });
      expect(trusted.statusCode, trusted.body).toBe(403);

      // And a member's invitation carries no right to install either.
      const invited = `invited-member-${uniqueSuffix()}@example.com`;
      const byInvitation = await register(testApp, {
        email: invited,
        password: 'invited-password',
        invitation: await invite(owner.token, invited, 'member'),
        chatappCode: code,
      });
      expect(byInvitation.statusCode, byInvitation.body).toBe(403);
      expect(await usersWithEmail(testApp, invited)).toBe(0);
      expect(exchangesOf(code)).toHaveLength(0);
      expect(await installedIn('T0MEMBER02')).toEqual([]);
    });

    it('installs for an admin re-registering, and no longer once they are demoted', async () => {
      const owner = await registerUser(testApp.app);
      const adminToken = await joinedMember(testApp.app, owner.token, 'admin');
      const email = await emailOf(adminToken);
      const code = `admin-code-${uniqueSuffix()}`;
      fake.issueCode(code, CLIENT_ID, { teamId: 'T0ADMIN001' });
      const byAdmin = await testApp.app.inject({
        method: 'POST',
        url: '/v2/users/register',
        headers: bearer(adminToken),
        payload: { email, password: 'member-password', chatappCode: code },
      });
      expect(byAdmin.statusCode, byAdmin.body).toBe(200);
      expect((byAdmin.json() as ChatappBody).chatapp).toMatchObject({
        status: 'installed',
        slack_team_id: 'T0ADMIN001',
      });
      expect(await installedIn('T0ADMIN001')).toEqual([owner.teamId]);

      const adminId = (byAdmin.json() as ChatappBody).user.id;
      const demoted = await testApp.app.inject({
        method: 'PATCH',
        url: `/v1/teams/members/${adminId}`,
        headers: bearer(owner.token),
        payload: { role: 'member' },
      });
      expect(demoted.statusCode, demoted.body).toBe(200);
      const again = `admin-code-${uniqueSuffix()}`;
      fake.issueCode(again, CLIENT_ID, { teamId: 'T0ADMIN001', teamName: 'Renamed' });
      const afterDemotion = await testApp.app.inject({
        method: 'POST',
        url: '/v2/users/register',
        headers: bearer(adminToken),
        payload: { email, password: 'member-password', chatappCode: again },
      });
      expect(afterDemotion.statusCode, afterDemotion.body).toBe(403);
      expect(exchangesOf(again)).toHaveLength(0);
    });
  });

  it('lets only one of two simultaneous registrations install the same workspace', async () => {
    fake.issueCode('race-code-1', CLIENT_ID, { teamId: 'T0RACE0001' });
    fake.issueCode('race-code-2', CLIENT_ID, { teamId: 'T0RACE0001' });
    const responses = await Promise.all(
      ['race-code-1', 'race-code-2'].map((code) => register(testApp, registration({ chatappCode: code }))),
    );
    expect(responses.map((response) => response.statusCode).sort()).toEqual([201, 409]);
    const loser = responses.find((response) => response.statusCode === 409);
    expect(loser?.json()).toEqual({ detail: 'This Slack workspace is already connected to another team' });
    const installed = await rowsOf(testApp, sql`select id from connectors where external_id = 'T0RACE0001'`);
    expect(installed).toHaveLength(1);
  });

  it("answers an invalid code with 502 naming Slack's error and creates nothing", async () => {
    const payload = registration({ chatappCode: 'not-a-code-slack-issued' });
    const before = await rowCounts(testApp);
    const response = await register(testApp, payload);
    expect(response.statusCode, response.body).toBe(502);
    const { detail } = response.json() as { detail: string };
    expect(detail).toContain('invalid_code');
    expect(fake.callsTo('oauth.v2.access').at(-1)?.body).toMatchObject({ code: 'not-a-code-slack-issued' });
    expect(await rowCounts(testApp)).toEqual(before);
    expect(await usersWithEmail(testApp, String(payload.email))).toBe(0);

    // Nothing half-made blocks the same e-mail and provider account afterwards.
    const retry = await register(testApp, { ...payload, chatappCode: null });
    expect(retry.statusCode, retry.body).toBe(201);
    expect(await usersWithEmail(testApp, String(payload.email))).toBe(1);
  });

  it('refuses a code that was already used, as Slack does', async () => {
    fake.issueCode('single-use-code', CLIENT_ID);
    const first = await register(testApp, registration({ chatappCode: 'single-use-code' }));
    expect(first.statusCode, first.body).toBe(201);
    const second = await register(testApp, registration({ chatappCode: 'single-use-code' }));
    expect(second.statusCode).toBe(502);
    expect((second.json() as { detail: string }).detail).toContain('invalid_code');
  });

  it('answers 502 when Slack rate-limits the exchange, and creates nothing', async () => {
    fake.issueCode('rate-limited-code', CLIENT_ID);
    fake.rateLimitNext('oauth.v2.access', 30);
    const payload = registration({ chatappCode: 'rate-limited-code' });
    const before = await rowCounts(testApp);
    const started = Date.now();
    const response = await register(testApp, payload);
    expect(response.statusCode, response.body).toBe(502);
    expect((response.json() as { detail: string }).detail).toMatch(/rate-limited/);
    // The user is waiting: no sleeping through Retry-After.
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await rowCounts(testApp)).toEqual(before);
  });

  it('answers 502 when Slack cannot be reached, and creates nothing', async () => {
    const unreachable = await startTestApp({
      env: {
        SLACK_CLIENT_ID: CLIENT_ID,
        SLACK_CLIENT_SECRET: CLIENT_SECRET,
        SLACK_API_URL: await closedPortUrl(),
      },
    });
    try {
      const payload = registration({ chatappCode: 'any-code' });
      const response = await register(unreachable, payload);
      expect(response.statusCode, response.body).toBe(502);
      expect((response.json() as { detail: string }).detail).toMatch(/Slack could not be reached/);
      expect(await usersWithEmail(unreachable, String(payload.email))).toBe(0);
    } finally {
      await unreachable.close();
    }
  });

  it('says so, and registers the user (201), when Slack is not configured', async () => {
    const unconfigured = await startTestApp();
    try {
      const callsBefore = fake.calls.length;
      const response = await register(unconfigured, registration({ chatappCode: 'some-code' }));
      expect(response.statusCode, response.body).toBe(201);
      const body = response.json() as ChatappBody;
      expect(body.chatapp?.status).toBe('not_configured');
      expect(body.chatapp?.detail).toMatch(/Slack is not configured/);
      expect(body.chatapp?.detail).toContain('SLACK_CLIENT_ID');
      expect(fake.calls.length).toBe(callsBefore);
      const me = await unconfigured.app.inject({ url: '/v1/users/me', headers: bearer(body.access_token) });
      expect((me.json() as { connectors: unknown[] }).connectors).toEqual([]);
    } finally {
      await unconfigured.close();
    }
  });
});

import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from '../../../../test/helpers/run-cli.js';
import { bearer, registerUser, startTestApp, type TestApp } from '../../../../test/helpers/test-app.js';

const DAY_MS = 24 * 60 * 60 * 1000;

interface NewToken {
  id: string;
  name: string;
  token: string;
  created_at: string;
  expires_at: string | null;
}

interface ListedToken {
  id: string;
  name: string;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
}

describe('/v1/users/me/tokens: personal access tokens', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp();
  });
  afterAll(() => testApp.close());

  const request = (method: 'GET' | 'POST' | 'DELETE', url: string, token: string, payload?: unknown) =>
    testApp.app.inject({
      method,
      url,
      headers: bearer(token),
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });

  async function makeToken(sessionToken: string, body: Record<string, unknown>): Promise<NewToken> {
    const response = await request('POST', '/v1/users/me/tokens', sessionToken, body);
    if (response.statusCode !== 201)
      throw new Error(`token refused: ${response.statusCode} ${response.body}`);
    return response.json() as NewToken;
  }

  const listed = async (token: string): Promise<ListedToken[]> => {
    const response = await request('GET', '/v1/users/me/tokens', token);
    expect(response.statusCode).toBe(200);
    return response.json().tokens as ListedToken[];
  };

  it('makes a token shown once that acts as the user, listed without its secret', async () => {
    const user = await registerUser(testApp.app);
    const created = await request('POST', '/v1/users/me/tokens', user.token, {
      name: '  laptop CLI  ',
      expires_in_days: 30,
    });
    expect(created.statusCode).toBe(201);
    const made = created.json() as NewToken;
    expect(made).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'laptop CLI',
      token: expect.stringMatching(/^kat_/),
      created_at: expect.any(String),
      expires_at: expect.any(String),
    });
    expect(Date.parse(made.expires_at ?? '') - Date.parse(made.created_at)).toBe(30 * DAY_MS);

    const me = await request('GET', '/v1/users/me', made.token);
    expect(me.statusCode).toBe(200);
    expect(me.json()).toMatchObject({ id: user.userId, team_id: user.teamId });
    expect((await request('GET', '/v1/documents', made.token)).statusCode).toBe(200);

    const list = await request('GET', '/v1/users/me/tokens', user.token);
    expect(list.body).not.toContain(made.token);
    expect(list.json()).toEqual({
      tokens: [
        {
          id: made.id,
          name: 'laptop CLI',
          created_at: made.created_at,
          expires_at: made.expires_at,
          last_used_at: expect.toSatisfy((value) => value === null || typeof value === 'string'),
        },
      ],
    });
    // The token itself lists the same (sessions never appear).
    expect((await listed(made.token)).map((token) => token.id)).toEqual([made.id]);
  });

  it('never expires without expires_in_days, and lists tokens newest first', async () => {
    const user = await registerUser(testApp.app);
    const older = await makeToken(user.token, { name: 'deploy script' });
    expect(older.expires_at).toBeNull();
    const newer = await makeToken(user.token, { name: 'notebook', expires_in_days: null });
    expect(newer.expires_at).toBeNull();
    const tokens = await listed(user.token);
    expect(tokens.map((token) => token.name)).toEqual(['notebook', 'deploy script']);
    expect(tokens.map((token) => token.expires_at)).toEqual([null, null]);
  });

  it('marks when a token was last used', async () => {
    const user = await registerUser(testApp.app);
    const made = await makeToken(user.token, { name: 'ci' });
    expect((await listed(user.token))[0]?.last_used_at).toBeNull();
    const before = Date.now();
    expect((await request('GET', '/v1/users/me', made.token)).statusCode).toBe(200);
    // Written in the background, never holding the request up.
    await expect
      .poll(async () => (await listed(user.token))[0]?.last_used_at ?? null)
      .toEqual(expect.any(String));
    const lastUsed = Date.parse((await listed(user.token))[0]?.last_used_at ?? '');
    // The database's clock against this process's: the same machine, a second's margin.
    expect(lastUsed).toBeGreaterThan(before - 1000);
  });

  it('revokes a token: 204, 401 at once on its next request, gone from the list', async () => {
    const user = await registerUser(testApp.app);
    const made = await makeToken(user.token, { name: 'to revoke' });
    const kept = await makeToken(user.token, { name: 'to keep' });
    // Used first, so this process has the caller cached: revocation must drop it.
    expect((await request('GET', '/v1/users/me', made.token)).statusCode).toBe(200);
    const revoked = await request('DELETE', `/v1/users/me/tokens/${made.id}`, user.token);
    expect(revoked.statusCode).toBe(204);
    expect(revoked.body).toBe('');
    const after = await request('GET', '/v1/users/me', made.token);
    expect(after.statusCode).toBe(401);
    expect((await listed(user.token)).map((token) => token.id)).toEqual([kept.id]);
    expect((await request('DELETE', `/v1/users/me/tokens/${made.id}`, user.token)).statusCode).toBe(404);
    expect((await request('GET', '/v1/users/me', kept.token)).statusCode).toBe(200);
    expect((await request('GET', '/v1/users/me', user.token)).statusCode).toBe(200);
  });

  it("keeps users apart: another user's token is not listed and revoking it is 404, as for unknown ids", async () => {
    const owner = await registerUser(testApp.app);
    const stranger = await registerUser(testApp.app);
    const made = await makeToken(owner.token, { name: 'mine' });
    expect(await listed(stranger.token)).toEqual([]);
    for (const id of [made.id, randomUUID(), 'not-a-uuid', '1']) {
      const response = await request('DELETE', `/v1/users/me/tokens/${id}`, stranger.token);
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ detail: 'Token not found' });
    }
    expect((await request('GET', '/v1/users/me', made.token)).statusCode).toBe(200);
    expect((await listed(owner.token)).map((token) => token.id)).toEqual([made.id]);
  });

  it('stops an expired token working and leaves it out of the list', async () => {
    const user = await registerUser(testApp.app);
    const made = await makeToken(user.token, { name: 'short-lived', expires_in_days: 1 });
    await testApp.runtime.database.sql.executeSql(
      `UPDATE access_tokens SET expires_at = now() - interval '1 second' WHERE public_id = $1`,
      [made.id],
    );
    expect((await request('GET', '/v1/users/me', made.token)).statusCode).toBe(401);
    expect(await listed(user.token)).toEqual([]);
  });

  it('answers FastAPI-style 422s for a blank or long name and an expiry outside 1..3650 days', async () => {
    const user = await registerUser(testApp.app);
    const refusal = async (body: Record<string, unknown>) => {
      const response = await request('POST', '/v1/users/me/tokens', user.token, body);
      expect(response.statusCode).toBe(422);
      return (response.json().detail as { loc: unknown[]; type: string }[]).map(({ loc, type }) => ({
        loc,
        type,
      }));
    };
    expect(await refusal({ name: '   ' })).toEqual([{ loc: ['body', 'name'], type: 'string_too_short' }]);
    expect(await refusal({ name: 'x'.repeat(101) })).toEqual([
      { loc: ['body', 'name'], type: 'string_too_long' },
    ]);
    expect(await refusal({})).toEqual([{ loc: ['body', 'name'], type: 'missing' }]);
    expect(await refusal({ name: 'ci', expires_in_days: 0 })).toEqual([
      { loc: ['body', 'expires_in_days'], type: 'greater_than_equal' },
    ]);
    expect(await refusal({ name: 'ci', expires_in_days: 3651 })).toEqual([
      { loc: ['body', 'expires_in_days'], type: 'less_than_equal' },
    ]);
    expect(await refusal({ name: 'ci', expires_in_days: 1.5 })).toEqual([
      { loc: ['body', 'expires_in_days'], type: 'int_from_float' },
    ]);
    // A name of 100 characters once trimmed, and the longest expiry, are fine.
    const longest = await makeToken(user.token, { name: ` ${'x'.repeat(100)} `, expires_in_days: 3650 });
    expect(longest.name).toBe('x'.repeat(100));
    expect(await listed(user.token)).toHaveLength(1);
  });

  it('signs the CLI in like a session token, and no longer once revoked', async () => {
    const user = await registerUser(testApp.app);
    const made = await makeToken(user.token, { name: 'cli' });
    const url = await testApp.app.listen({ port: 0, host: '127.0.0.1' });
    const folder = await mkdtemp(path.join(tmpdir(), 'personal-token-'));
    try {
      const file = path.join(folder, 'handbook.md');
      await writeFile(file, '# Leave\n\nEveryone gets 30 days of leave a year.\n');
      const ingest = () =>
        runCliCaptured(['ingest', file, '--no-wait', '--json'], {
          env: { KNOWLEDGE_URL: url, KNOWLEDGE_TOKEN: made.token },
        });
      const uploaded = await ingest();
      expect(uploaded.code).toBe(0);
      const summary = JSON.parse(uploaded.stdout) as { queued: number; jobs: string[]; aborted: null };
      expect(summary).toMatchObject({ queued: 1, aborted: null });
      // The upload's job is the user's team's: the token acted as the user.
      const job = await request('GET', `/v1/documents/jobs/${summary.jobs[0]}`, user.token);
      expect(job.statusCode).toBe(200);

      await request('DELETE', `/v1/users/me/tokens/${made.id}`, user.token);
      const refused = await ingest();
      expect(refused.code).toBe(2);
      expect(refused.stderr + refused.stdout).toContain('refused the token (401');
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('is documented in the OpenAPI document', async () => {
    const document = (await testApp.app.inject({ url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, { summary?: string; description?: string; responses: object }>>;
    };
    const tokens = document.paths['/v1/users/me/tokens'];
    const token = document.paths['/v1/users/me/tokens/{id}'];
    expect(tokens?.post?.responses).toHaveProperty(['201']);
    expect(tokens?.post?.responses).toHaveProperty(['409']);
    expect(tokens?.post?.description).toContain('never expires');
    expect(tokens?.get?.summary).toBeTruthy();
    expect(token?.delete?.responses).toHaveProperty(['404']);
  });
});

import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, registerUser, startTestApp, type TestApp } from '../../../../test/helpers/test-app.js';
import { accounts } from '../../../db/schema.js';

const SECRET = 'test-registration-secret-0123456789abcdef';

function registration(overrides: Record<string, unknown> = {}) {
  const unique = Math.random().toString(36).slice(2, 10);
  return {
    type: 'oauth',
    provider: 'google',
    provider_account_id: `google-${unique}`,
    email: `Person.${unique}@Example.com`,
    name: 'Person',
    access_token: `ya29.access-${unique}`,
    refresh_token: `1//refresh-${unique}`,
    id_token: `eyJ.id-${unique}`,
    expires_at: 1_900_000_000,
    scope: 'openid email',
    token_type: 'Bearer',
    ...overrides,
  };
}

describe('POST /v2/users/register', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp();
  });
  afterAll(() => testApp.close());

  const post = (payload: unknown, headers: Record<string, string> = {}) =>
    testApp.app.inject({ method: 'POST', url: '/v2/users/register', payload: payload as object, headers });

  it('creates a user, account, team and vector store, and answers 201 with a bearer token', async () => {
    const record = registration();
    const response = await post(record);
    expect(response.statusCode).toBe(201);
    const body = response.json();
    expect(body).toMatchObject({
      message: 'User registered.',
      token_type: 'bearer',
      user: { email: record.email.toLowerCase(), name: 'Person', is_active: true, role: 'owner' },
      vector_store: { provider: 'pgvector', index_name: 'chunks', environment: expect.any(String) },
    });
    expect(body.team.owner_user_id).toBe(body.user.id);
    expect(body.user.team_id).toBe(body.team.id);
    expect(body.vector_store.namespaces).toEqual([`team-${body.team.id}`]);
    expect(['embedded', 'postgres']).toContain(body.vector_store.environment);
    expect(body.access_token).toMatch(/^kat_/);
    expect(JSON.stringify(body)).not.toContain(record.access_token);
    expect(JSON.stringify(body)).not.toContain(record.refresh_token);

    const me = await testApp.app.inject({ url: '/v1/users/me', headers: bearer(body.access_token) });
    expect(me.statusCode).toBe(200);
    expect(me.json()).toEqual({
      id: body.user.id,
      email: record.email.toLowerCase(),
      updated_at: expect.any(String),
      is_active: true,
      team_id: body.team.id,
      created_at: expect.any(String),
      connectors: [],
      vector_store: body.vector_store,
      role: 'owner',
      // Registered without the trusted front end's secret: the address is not proven.
      email_verified: false,
    });
  });

  it('refuses to re-register an existing e-mail or provider account without proof: 409, nothing changes', async () => {
    const record = registration({ password: 'correct horse battery' });
    const first = await post(record);
    expect(first.statusCode).toBe(201);
    const takeover = await post({ ...record, access_token: 'attacker', password: undefined });
    expect(takeover.statusCode).toBe(409);
    expect(takeover.json().detail).toMatch(/already registered/);
    const sameAccountOtherEmail = await post({ ...record, email: 'other@example.com', password: undefined });
    expect(sameAccountOtherEmail.statusCode).toBe(409);
    const wrongPassword = await post({ ...record, password: 'wrong password' });
    expect(wrongPassword.statusCode).toBe(409);
    const forgedBearer = await post({ ...record, password: undefined }, bearer('kat_not-a-real-token'));
    expect(forgedBearer.statusCode).toBe(409);
    // Another user's valid token is no proof either.
    const other = await registerUser(testApp.app);
    const otherToken = await post({ ...record, password: undefined }, bearer(other.token));
    expect(otherToken.statusCode).toBe(409);
    // The original token still works and the user is unchanged.
    const me = await testApp.app.inject({ url: '/v1/users/me', headers: bearer(first.json().access_token) });
    expect(me.json().email).toBe(record.email.toLowerCase());
  });

  it('refreshes tokens with 200 for the user itself, its password, or the registration secret', async () => {
    const record = registration({ password: 'correct horse battery' });
    const first = (await post(record)).json();
    expect(first.email_verification).toBe('unverified');
    const withOwnToken = await post(
      { ...record, access_token: 'new-1', password: undefined },
      bearer(first.access_token),
    );
    expect(withOwnToken.statusCode).toBe(200);
    expect(withOwnToken.json()).toMatchObject({ message: 'User registered.', user: { id: first.user.id } });
    expect(withOwnToken.json().team.id).toBe(first.team.id);
    const withPassword = await post({ ...record, access_token: 'new-2' });
    expect(withPassword.statusCode).toBe(200);
    // The front end's secret proves the e-mail: the unverified account is the prover's from now on.
    const withSecret = await post({ ...record, access_token: 'new-3', password: undefined }, bearer(SECRET));
    expect(withSecret.statusCode).toBe(200);
    expect(withSecret.json()).toMatchObject({ user: { id: first.user.id }, email_verification: 'verified' });
    const again = await post({ ...record, access_token: 'new-4', password: undefined }, bearer(SECRET));
    expect(again.statusCode).toBe(200);
    // A new provider account for a verified user needs that user's own proof, not just the secret.
    const newAccount = { ...record, provider: 'slack', provider_account_id: 'U123', password: undefined };
    expect((await post(newAccount, bearer(SECRET))).statusCode).toBe(409);
    const linked = await post(newAccount, bearer(again.json().access_token));
    expect(linked.statusCode).toBe(200);
    expect(linked.json().user.id).toBe(first.user.id);
  });

  // Issue 32: POST /v1/auth/password needs the current password; registration must not be a way around it.
  describe('a password change with the user’s own token', () => {
    const signIn = (email: string, password: string) =>
      testApp.app.inject({ method: 'POST', url: '/v1/auth/token', payload: { email, password } });
    const me = (token: string) => testApp.app.inject({ url: '/v1/users/me', headers: bearer(token) });
    /** What a refused change must leave as it was: the password, the accounts, the tokens. */
    const accountState = async (userId: number) => {
      const { rows } = await testApp.runtime.database.sql.executeSql(
        `SELECT (SELECT password_hash FROM users WHERE id = $1) AS password_hash,
                (SELECT count(*)::int FROM accounts WHERE user_id = $1) AS accounts,
                (SELECT count(*)::int FROM access_tokens WHERE user_id = $1) AS tokens`,
        [userId],
      );
      return rows[0];
    };

    it('a stolen token alone sets no new password: 403 and nothing changes', async () => {
      const record = registration({ password: 'correct horse battery' });
      const first = (await post(record)).json();
      const email = first.user.email as string;
      const elsewhere = (await signIn(email, 'correct horse battery')).json().access_token as string;
      const before = await accountState(first.user.id);

      // The attack: the token and a password of the attacker's choosing (a password account linked too).
      const attack = await post({ email, password: 'attacker-password' }, bearer(first.access_token));
      expect(attack.statusCode, attack.body).toBe(403);
      expect(attack.json().detail).toContain('current_password');
      // Each is a failed password attempt, counted (5 an hour) as a sign-in's: fewer here.
      for (const payload of [
        { ...record, password: 'attacker-password', current_password: null },
        { email, password: 'attacker-password', current_password: 'a guess at it' },
      ]) {
        const again = await post(payload, bearer(first.access_token));
        expect(again.statusCode, again.body).toBe(403);
      }

      expect(await accountState(first.user.id)).toEqual(before);
      expect((await signIn(email, 'attacker-password')).statusCode).toBe(401);
      expect((await signIn(email, 'correct horse battery')).statusCode).toBe(200);
      expect((await me(elsewhere)).statusCode).toBe(200);
    });

    it('changes it with current_password; the stored password again is a plain refresh', async () => {
      const record = registration({ password: 'correct horse battery' });
      const first = (await post(record)).json();
      const email = first.user.email as string;
      const elsewhere = (await signIn(email, 'correct horse battery')).json().access_token as string;
      const before = await accountState(first.user.id);

      const refresh = await post(
        { ...record, password: 'correct horse battery', access_token: 'ya29.newer' },
        bearer(first.access_token),
      );
      expect(refresh.statusCode, refresh.body).toBe(200);
      expect((await me(elsewhere)).statusCode).toBe(200);
      expect((await accountState(first.user.id))?.password_hash).toBe(before?.password_hash);

      const changed = await post(
        { ...record, password: 'a new horse battery', current_password: 'correct horse battery' },
        bearer(first.access_token),
      );
      expect(changed.statusCode, changed.body).toBe(200);
      expect((await me(elsewhere)).statusCode).toBe(401);
      expect((await me(first.access_token)).statusCode).toBe(200);
      expect((await signIn(email, 'correct horse battery')).statusCode).toBe(401);
      expect((await signIn(email, 'a new horse battery')).statusCode).toBe(200);
    });

    it('an account without a password gets none this way: 403 pointing to a password reset', async () => {
      const user = await registerUser(testApp.app);
      const email = (user.body.user as { email: string }).email;
      const before = await accountState(user.userId);
      const response = await post({ email, password: 'chosen-password' }, bearer(user.token));
      expect(response.statusCode, response.body).toBe(403);
      expect(response.json().detail).toContain('/v1/auth/password-reset');
      expect(await accountState(user.userId)).toEqual(before);
      expect((await signIn(email, 'chosen-password')).statusCode).toBe(401);
    });
  });

  it('registers with username and password, then signs in, then revokes the token', async () => {
    const username = `user_${Math.random().toString(36).slice(2, 8)}`;
    const record = registration({ username, password: 's3cret-password' });
    expect((await post(record)).statusCode).toBe(201);
    const taken = await post(registration({ username, password: 'another-password' }));
    expect(taken.statusCode).toBe(409);
    expect(taken.json()).toEqual({ detail: 'This username is taken' });

    const byUsername = await testApp.app.inject({
      method: 'POST',
      url: '/v1/auth/token',
      payload: { username, password: 's3cret-password' },
    });
    expect(byUsername.statusCode).toBe(200);
    expect(byUsername.json()).toEqual({ access_token: expect.stringMatching(/^kat_/), token_type: 'bearer' });
    const byEmail = await testApp.app.inject({
      method: 'POST',
      url: '/v1/auth/token',
      payload: { email: record.email.toUpperCase(), password: 's3cret-password' },
    });
    expect(byEmail.statusCode).toBe(200);
    const wrong = await testApp.app.inject({
      method: 'POST',
      url: '/v1/auth/token',
      payload: { username, password: 'nope' },
    });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toEqual({ detail: 'Incorrect e-mail, username or password' });
    const unknown = await testApp.app.inject({
      method: 'POST',
      url: '/v1/auth/token',
      payload: { email: 'nobody@example.com', password: 'nope' },
    });
    expect(unknown.statusCode).toBe(401);

    const token = byUsername.json().access_token as string;
    expect((await testApp.app.inject({ url: '/v1/users/me', headers: bearer(token) })).statusCode).toBe(200);
    const revoke = await testApp.app.inject({
      method: 'DELETE',
      url: '/v1/auth/token',
      headers: bearer(token),
    });
    expect(revoke.statusCode).toBe(204);
    const after = await testApp.app.inject({ url: '/v1/users/me', headers: bearer(token) });
    expect(after.statusCode).toBe(401);
    expect(after.json()).toEqual({ detail: 'Not authenticated' });
    // The other token of the same user is unaffected.
    expect(
      (await testApp.app.inject({ url: '/v1/users/me', headers: bearer(byEmail.json().access_token) }))
        .statusCode,
    ).toBe(200);
  });

  it('needs only an e-mail, then a password without a provider, or the account id with one', async () => {
    const issues = async (payload: unknown) => {
      const response = await post(payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(422);
      return (response.json().detail as { loc: unknown[]; type: string; msg: string }[]).map((issue) => [
        issue.loc,
        issue.type,
        issue.msg,
      ]);
    };
    expect(await issues({})).toEqual([[['body', 'email'], 'missing', 'Field required']]);
    expect(await issues({ email: 'nopassword@example.com', name: 'No Password' })).toEqual([
      [['body', 'password'], 'missing', 'Field required'],
    ]);
    expect(await issues({ email: 'nopassword@example.com', password: null })).toEqual([
      [['body', 'password'], 'missing', 'Field required'],
    ]);
    expect(await issues({ email: 'google@example.com', provider: 'google', type: 'oauth' })).toEqual([
      [['body', 'provider_account_id'], 'missing', 'Field required'],
    ]);
    // Every problem the service finds is listed in one 422.
    expect(await issues({ email: 'not-an-email', password: 'short' })).toEqual([
      [['body', 'email'], 'value_error', 'value is not a valid email address'],
      [['body', 'password'], 'string_too_short', 'String should have at least 8 characters'],
    ]);
  });

  it('creates a password account from only an e-mail and a password (and a name)', async () => {
    const unique = Math.random().toString(36).slice(2, 10);
    const email = `Sam.${unique}@Example.com`;
    const response = await post({ email, password: 'correct horse battery' });
    expect(response.statusCode).toBe(201);
    const body = response.json();
    expect(body).toMatchObject({
      message: 'User registered.',
      token_type: 'bearer',
      email_verification: 'unverified',
      user: { email: email.toLowerCase(), name: `sam.${unique}`, is_active: true },
      team: { name: `sam.${unique}'s team` },
      vector_store: { provider: 'pgvector', namespaces: [`team-${body.team.id}`] },
    });
    const me = await testApp.app.inject({ url: '/v1/users/me', headers: bearer(body.access_token) });
    expect(me.json()).toMatchObject({ id: body.user.id, email: email.toLowerCase() });
    const [account] = await testApp.runtime.database.db
      .select()
      .from(accounts)
      .where(eq(accounts.userId, body.user.id));
    expect(account).toMatchObject({
      type: 'credentials',
      provider: 'credentials',
      providerAccountId: email.toLowerCase(),
    });

    // The same sign-up again is a sign-in: 200 with the password, 409 without it; the name is kept.
    const again = await post({ email: email.toUpperCase(), password: 'correct horse battery' });
    expect(again.statusCode).toBe(200);
    expect(again.json().user).toMatchObject({ id: body.user.id, name: `sam.${unique}` });
    expect((await post({ email, password: 'wrong horse battery' })).statusCode).toBe(409);

    const named = await post({
      email: `named-${unique}@example.com`,
      password: 'correct horse battery',
      name: 'Sam',
    });
    expect(named.statusCode).toBe(201);
    expect(named.json().user.name).toBe('Sam');
    expect(named.json().team.name).toBe("Sam's team");

    // With the front end's secret the address counts as proven.
    const trusted = await post(
      { email: `trusted-${unique}@example.com`, password: 'correct horse battery' },
      bearer(SECRET),
    );
    expect(trusted.statusCode).toBe(201);
    expect(trusted.json().email_verification).toBe('verified');
  });

  it('refuses a password under 8 characters with a 422 that names the rule, never echoing it', async () => {
    for (const payload of [
      { email: 'short@example.com', password: 'seven77' },
      { email: 'short@example.com', password: '' },
      registration({ password: 'seven77' }),
    ]) {
      const response = await post(payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(422);
      expect(response.json()).toEqual({
        detail: [
          {
            loc: ['body', 'password'],
            msg: 'String should have at least 8 characters',
            type: 'string_too_short',
          },
        ],
      });
    }
    expect((await post({ email: 'eight@example.com', password: 'eight888' })).statusCode).toBe(201);
  });

  it('signs in with `username` set to the e-mail, in any spelling of it', async () => {
    const unique = Math.random().toString(36).slice(2, 10);
    const email = `signin.${unique}@example.com`;
    expect((await post({ email, password: 'correct horse battery' })).statusCode).toBe(201);
    const signIn = (payload: object) =>
      testApp.app.inject({ method: 'POST', url: '/v1/auth/token', payload });
    for (const username of [email, ` ${email.toUpperCase()} `]) {
      const response = await signIn({ username, password: 'correct horse battery' });
      expect(response.statusCode, username).toBe(200);
      const token = response.json().access_token as string;
      const me = await testApp.app.inject({ url: '/v1/users/me', headers: bearer(token) });
      expect(me.json().email).toBe(email);
    }
    expect((await signIn({ username: email, password: 'wrong horse battery' })).statusCode).toBe(401);
    expect((await signIn({ username: `nobody.${unique}@example.com`, password: 'x' })).statusCode).toBe(401);
    // A username that only looks like an address still signs its owner in.
    const lookalike = `name@${unique}.example`;
    expect(
      (await post(registration({ username: lookalike, password: 'lookalike password' }))).statusCode,
    ).toBe(201);
    expect((await signIn({ username: lookalike, password: 'lookalike password' })).statusCode).toBe(200);
  });

  it('types each wrong field, accepts null for optional ones, and ignores unknown extras', async () => {
    const wrong = await post(registration({ email: 42, expires_at: 'soon', name: null, password: 7 }));
    expect(wrong.statusCode).toBe(422);
    expect(wrong.json().detail).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          loc: ['body', 'email'],
          type: 'string_type',
          msg: 'Input should be a valid string',
        }),
        expect.objectContaining({ loc: ['body', 'expires_at'], type: 'int_parsing' }),
        expect.objectContaining({ loc: ['body', 'name'], type: 'string_type' }),
        expect.objectContaining({ loc: ['body', 'password'], type: 'string_type' }),
      ]),
    );
    expect(wrong.json().detail).toHaveLength(4);
    const nulls = await post(
      registration({
        refresh_token: null,
        access_token: null,
        username: null,
        chatappCode: null,
        extra: { x: 1 },
      }),
    );
    expect(nulls.statusCode).toBe(201);
    const badEmail = await post(registration({ email: 'not-an-email' }));
    expect(badEmail.statusCode).toBe(422);
    expect(badEmail.json().detail[0]).toMatchObject({ loc: ['body', 'email'], type: 'value_error' });
  });

  it('answers a body that is not JSON with json_invalid at its byte offset', async () => {
    const response = await testApp.app.inject({
      method: 'POST',
      url: '/v2/users/register',
      headers: { 'content-type': 'application/json' },
      payload: '{"email": "a@b.c", }',
    });
    expect(response.statusCode).toBe(422);
    expect(response.json()).toEqual({
      detail: [{ loc: ['body', 19], msg: 'JSON decode error', type: 'json_invalid' }],
    });
    const empty = await testApp.app.inject({
      method: 'POST',
      url: '/v2/users/register',
      headers: { 'content-type': 'application/json' },
      payload: '',
    });
    expect(empty.statusCode).toBe(422);
    expect(empty.json()).toEqual({ detail: [{ loc: ['body'], msg: 'Field required', type: 'missing' }] });
  });

  it('answers a body over the limit with 413', async () => {
    const response = await post(registration({ name: 'x'.repeat(1024 * 1024 + 10) }));
    expect(response.statusCode).toBe(413);
    expect(response.json().detail).toBe('The request body is larger than the 1 MiB limit');
  });
});

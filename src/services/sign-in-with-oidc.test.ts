import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOidcProvider, startFakeOidcProvider } from '../../test/fakes/fake-oidc-provider.js';
import {
  bearer,
  registerUser,
  startTestApp,
  TEST_REGISTRATION_SECRET,
  type TestApp,
  uniqueSuffix,
  uploadDocuments,
} from '../../test/helpers/test-app.js';
import { signInWithOidc } from './sign-in-with-oidc.js';
import { startOidcSignIn } from './start-oidc-sign-in.js';

describe('signInWithOidc: who the person is and which team they join', () => {
  let provider: FakeOidcProvider;
  let testApp: TestApp;

  beforeAll(async () => {
    provider = await startFakeOidcProvider();
    testApp = await startTestApp({
      env: {
        OIDC_ISSUER: provider.issuer,
        OIDC_CLIENT_ID: provider.clientId,
        OIDC_CLIENT_SECRET: provider.clientSecret,
      },
      worker: true,
    });
  });
  afterAll(async () => {
    await testApp?.close();
    await provider?.close();
  });

  /** One whole sign-in as `user`: the start, the provider's answer, the callback's use case. */
  async function signInAs(user: { sub: string; email: string }) {
    provider.setUser(user);
    const deps = testApp.runtime.deps;
    const started = await startOidcSignIn(deps);
    if (!started.ok) throw new Error(`start failed: ${started.detail}`);
    const authorization = await fetch(started.redirectUrl, { redirect: 'manual' });
    const back = new URL(authorization.headers.get('location') ?? '');
    return signInWithOidc(deps, { sealedLogin: started.sealedLogin, parameters: back.searchParams });
  }

  async function query(sql: string, params: unknown[] = []) {
    return (await testApp.runtime.database.sql.executeSql(sql, params)).rows;
  }

  async function teamOf(userId: number) {
    const [row] = await query('SELECT team_id, role FROM users WHERE id = $1', [userId]);
    return { teamId: Number(row?.team_id), role: row?.role };
  }

  /** A proven account with a team of its own (nothing in it), made by the trusted front end. */
  async function provenAccount() {
    const email = `existing-${uniqueSuffix()}@example.com`;
    const registered = await registerUser(testApp.app, { email }, bearer(TEST_REGISTRATION_SECRET));
    return { ...registered, email, sub: `sub-${uniqueSuffix()}` };
  }

  async function provision(teamId: number, email: string) {
    await query('INSERT INTO scim_users (id, team_id, user_name) VALUES ($1, $2, $3)', [
      randomUUID(),
      teamId,
      email,
    ]);
  }

  it('answers a session token that stands for the person, as a password sign-in’s does', async () => {
    const someone = { sub: `sub-${uniqueSuffix()}`, email: `Someone-${uniqueSuffix()}@Example.COM` };
    const result = await signInAs(someone);
    if (!result.ok) throw new Error(result.detail);
    expect(result.maxAgeSeconds).toBe(testApp.config.accessTokenTtlSeconds);
    const caller = await testApp.runtime.deps.callers.find(result.token);
    // The address in the one spelling accounts are keyed by, and proven.
    expect(caller).toMatchObject({
      userId: result.userId,
      email: someone.email.toLowerCase(),
      emailVerified: true,
    });
  });

  it('moves an existing account from its empty team of its own to the team whose directory provisioned it', async () => {
    const directory = await registerUser(testApp.app, {}, bearer(TEST_REGISTRATION_SECRET));
    const existing = await provenAccount();
    await provision(directory.teamId, existing.email);
    const result = await signInAs(existing);
    expect(result).toMatchObject({ ok: true, userId: existing.userId });
    expect(await teamOf(existing.userId)).toEqual({ teamId: directory.teamId, role: 'member' });
    // The empty team it left is gone; the directory's record is linked.
    expect(await query('SELECT id FROM teams WHERE id = $1', [existing.teamId])).toEqual([]);
    expect(await query('SELECT user_id FROM scim_users WHERE user_name = $1', [existing.email])).toEqual([
      { user_id: existing.userId },
    ]);
    // The token it had names its new team at once.
    const caller = await testApp.runtime.deps.callers.find(existing.token);
    expect(caller?.teamId).toBe(directory.teamId);
  });

  it('moves an existing account to an invitation’s team with its role, but never away from a team with documents in it', async () => {
    const inviting = await registerUser(testApp.app, {}, bearer(TEST_REGISTRATION_SECRET));
    const invite = async (email: string) => {
      const response = await testApp.app.inject({
        method: 'POST',
        url: '/v1/teams/invitations',
        headers: bearer(inviting.token),
        payload: { email, role: 'admin' },
      });
      expect(response.statusCode).toBe(201);
    };
    const empty = await provenAccount();
    await invite(empty.email);
    expect(await signInAs(empty)).toMatchObject({ ok: true, userId: empty.userId });
    expect(await teamOf(empty.userId)).toEqual({ teamId: inviting.teamId, role: 'admin' });

    const busy = await provenAccount();
    await uploadDocuments(testApp.app, busy.token, [
      { external_id: 'kept', title: 'Kept', text: 'Something of theirs.' },
    ]);
    await invite(busy.email);
    expect(await signInAs(busy)).toMatchObject({ ok: true, userId: busy.userId });
    // Signed in where it is; the invitation stays open for when they are ready.
    expect(await teamOf(busy.userId)).toEqual({ teamId: busy.teamId, role: 'owner' });
    expect(await query('SELECT accepted_at FROM team_invitations WHERE email = $1', [busy.email])).toEqual([
      { accepted_at: null },
    ]);
  });

  it('does not place an existing account by its domain: a claimed domain is for newcomers', async () => {
    const claiming = await registerUser(testApp.app, {}, bearer(TEST_REGISTRATION_SECRET));
    const domain = `claimed-${uniqueSuffix()}.example`;
    await query('INSERT INTO team_sign_in_domains (domain, team_id) VALUES ($1, $2)', [
      domain,
      claiming.teamId,
    ]);
    const email = `early-${uniqueSuffix()}@${domain}`;
    const existing = await registerUser(testApp.app, { email }, bearer(TEST_REGISTRATION_SECRET));
    expect(await signInAs({ sub: `sub-${uniqueSuffix()}`, email })).toMatchObject({ ok: true });
    expect(await teamOf(existing.userId)).toEqual({ teamId: existing.teamId, role: 'owner' });
  });

  it('ignores an invitation whose inviter no longer manages the team', async () => {
    const owner = await registerUser(testApp.app, {}, bearer(TEST_REGISTRATION_SECRET));
    const adminEmail = `admin-${uniqueSuffix()}@example.com`;
    const invitedAdmin = await testApp.app.inject({
      method: 'POST',
      url: '/v1/teams/invitations',
      headers: bearer(owner.token),
      payload: { email: adminEmail, role: 'admin' },
    });
    const admin = await registerUser(
      testApp.app,
      { email: adminEmail, invitation: invitedAdmin.json().code },
      bearer(TEST_REGISTRATION_SECRET),
    );
    const email = `by-a-former-admin-${uniqueSuffix()}@example.com`;
    const invitation = await testApp.app.inject({
      method: 'POST',
      url: '/v1/teams/invitations',
      headers: bearer(admin.token),
      payload: { email, role: 'member' },
    });
    expect(invitation.statusCode).toBe(201);
    // Demoted: their invitations no longer speak for the team.
    await query("UPDATE users SET role = 'member' WHERE id = $1", [admin.userId]);
    const result = await signInAs({ sub: `sub-${uniqueSuffix()}`, email });
    if (!result.ok) throw new Error(result.detail);
    expect((await teamOf(result.userId)).role).toBe('owner');
    expect((await teamOf(result.userId)).teamId).not.toBe(owner.teamId);
  });

  it('refuses a login state that is not this service’s, or a callback without one', async () => {
    provider.setUser({ sub: `sub-${uniqueSuffix()}`, email: `nobody-${uniqueSuffix()}@example.com` });
    const deps = testApp.runtime.deps;
    const started = await startOidcSignIn(deps);
    if (!started.ok) throw new Error(started.detail);
    const back = new URL(
      (await fetch(started.redirectUrl, { redirect: 'manual' })).headers.get('location') ?? '',
    );
    for (const sealedLogin of [undefined, '', 'not sealed', deps.secrets.seal('{"state":1}')]) {
      expect(await signInWithOidc(deps, { sealedLogin, parameters: back.searchParams })).toMatchObject({
        ok: false,
        failure: 'expired',
      });
    }
  });
});

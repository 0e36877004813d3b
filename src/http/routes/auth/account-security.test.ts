import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  registerUser,
  registrationRecord,
  startTestApp,
  TEST_REGISTRATION_SECRET,
  type TestApp,
  uniqueSuffix,
  uploadDocuments,
} from '../../../../test/helpers/test-app.js';
import { queryRows } from '../../../db/client.js';

const SECRET = TEST_REGISTRATION_SECRET;
const unique = uniqueSuffix;

/** What the trusted front end sends at a Google sign-in. */
const providerRegistration = (email: string, overrides: Record<string, unknown> = {}) =>
  registrationRecord(email, { name: 'Victim', ...overrides });

describe('accounts: pre-registration takeover, e-mail spelling, passwords and tokens', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp({ worker: true });
  });
  afterAll(() => testApp.close());

  const post = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
    testApp.app.inject({ method: 'POST', url, payload: payload as object, headers });
  const signIn = (email: string, password: string) => post('/v1/auth/token', { email, password });
  const me = (token: string) => testApp.app.inject({ url: '/v1/users/me', headers: bearer(token) });

  it("a password account made for someone else's e-mail is taken over by that person's provider sign-in", async () => {
    const victim = `victim-${unique()}@corp.com`;
    // The attacker registers the victim's address with a password of their own.
    const attacker = await post('/v2/users/register', {
      ...providerRegistration(victim, { provider: 'credentials', name: 'Attacker' }),
      password: 'attacker-password',
    });
    expect(attacker.statusCode).toBe(201);
    expect(attacker.json().email_verification).toBe('unverified');
    const attackerToken = attacker.json().access_token as string;

    // The victim signs in through the trusted front end later: the same user, now theirs.
    const victimSignIn = await post('/v2/users/register', providerRegistration(victim), bearer(SECRET));
    expect(victimSignIn.statusCode).toBe(200);
    expect(victimSignIn.json()).toMatchObject({
      user: { id: attacker.json().user.id },
      email_verification: 'verified',
    });
    const victimToken = victimSignIn.json().access_token as string;
    await uploadDocuments(testApp.app, victimToken, [
      { external_id: 'plan', title: 'Merger plan', text: 'The confidential zqxmerger plan is due in March.' },
    ]);

    // Every way the attacker had in is gone: the token, the password, the username.
    expect((await me(attackerToken)).statusCode).toBe(401);
    expect((await signIn(victim, 'attacker-password')).statusCode).toBe(401);
    const search = await post('/v1/search', { query: 'zqxmerger' }, bearer(attackerToken));
    expect(search.statusCode).toBe(401);
    // The victim's own search finds the document.
    const own = await post('/v1/search', { query: 'zqxmerger' }, bearer(victimToken));
    expect(own.json().results).toHaveLength(1);
    // A password registration for the now verified address cannot take it back.
    const retake = await post('/v2/users/register', {
      ...providerRegistration(victim, { provider: 'credentials' }),
      password: 'attacker-password-2',
    });
    expect(retake.statusCode).toBe(409);
  });

  it("an account made with someone else's provider account id goes to that provider account's owner", async () => {
    const victim = `idvictim-${unique()}@corp.com`;
    const providerAccountId = `google-${unique()}`;
    // The attacker uses their own address but the victim's (guessable) provider account id.
    const attacker = await post('/v2/users/register', {
      ...providerRegistration(`attacker-${unique()}@evil.example`, {
        provider_account_id: providerAccountId,
      }),
      password: 'attacker-password',
    });
    expect(attacker.statusCode).toBe(201);
    const victimSignIn = await post(
      '/v2/users/register',
      providerRegistration(victim, { provider_account_id: providerAccountId }),
      bearer(SECRET),
    );
    expect(victimSignIn.statusCode).toBe(200);
    expect(victimSignIn.json().user).toMatchObject({ id: attacker.json().user.id, email: victim });
    expect((await me(attacker.json().access_token)).statusCode).toBe(401);
    expect((await signIn(attacker.json().user.email, 'attacker-password')).statusCode).toBe(401);
  });

  it("the takeover also removes the Slack workspace the account's creator connected", async () => {
    const victim = `slack-victim-${unique()}@corp.com`;
    const attacker = await post('/v2/users/register', {
      ...providerRegistration(victim, { provider: 'credentials' }),
      password: 'attacker-password',
    });
    const teamId = attacker.json().team.id as number;
    const { db } = testApp.runtime.database;
    // What a chatappCode exchange stores: the attacker's workspace, whose bot answers from this team.
    await db.execute(sql`INSERT INTO connectors (team_id, slug, name, external_id)
      VALUES (${teamId}, 'chatapp', 'Slack: attacker', ${`T${unique()}`})`);
    const chatapps = () =>
      queryRows<{ id: number }>(
        db,
        sql`SELECT id FROM connectors WHERE team_id = ${teamId} AND slug = 'chatapp'`,
      );
    expect(await chatapps()).toHaveLength(1);
    const victimSignIn = await post('/v2/users/register', providerRegistration(victim), bearer(SECRET));
    expect(victimSignIn.json().team.id).toBe(teamId);
    expect(await chatapps()).toHaveLength(0);
  });

  /** A password account for `email`, made by whoever knows nothing but the address. */
  const passwordAccount = async (email: string, password = 'attacker-password', invitation?: string) => {
    const response = await post('/v2/users/register', {
      email,
      password,
      ...(invitation === undefined ? {} : { invitation }),
    });
    expect(response.statusCode).toBe(201);
    return response.json() as { access_token: string; user: { id: number }; team: { id: number } } & Record<
      string,
      unknown
    >;
  };
  const invite = async (token: string, email: string, role: 'member' | 'admin') => {
    const response = await post('/v1/teams/invitations', { email, role }, bearer(token));
    expect(response.statusCode).toBe(201);
    return response.json().code as string;
  };
  const searchHits = async (token: string, query: string) => {
    const response = await post('/v1/search', { query }, bearer(token));
    expect(response.statusCode).toBe(200);
    return (response.json().results as unknown[]).length;
  };

  it("an invitation code proves nothing of the e-mail: an address invited into the inviter's own team is still taken over by its owner", async () => {
    const victim = `invited-victim-${unique()}@corp.com`;
    const attacker = await passwordAccount(`inviter-${unique()}@evil.example`);
    const code = await invite(attacker.access_token, victim, 'admin');
    // The attacker redeems their own invitation for the victim's address, with a password of theirs.
    const squatter = await passwordAccount(victim, 'squatter-password', code);
    expect(squatter.email_verification).toBe('unverified');
    expect(squatter.team.id).toBe(attacker.team.id);

    const victimSignIn = await post('/v2/users/register', providerRegistration(victim), bearer(SECRET));
    expect(victimSignIn.statusCode).toBe(200);
    expect(victimSignIn.json()).toMatchObject({
      user: { id: squatter.user.id },
      email_verification: 'verified',
    });
    // Not in the team the attacker set up: a team of the victim's own.
    expect(victimSignIn.json().team.id).not.toBe(attacker.team.id);
    expect(victimSignIn.json().user.role).toBe('owner');
    await uploadDocuments(testApp.app, victimSignIn.json().access_token, [
      { external_id: 'memo', title: 'Board memo', text: 'The zqxboardmemo says the sale closes in May.' },
    ]);
    expect(await searchHits(victimSignIn.json().access_token, 'zqxboardmemo')).toBe(1);
    expect(await searchHits(attacker.access_token, 'zqxboardmemo')).toBe(0);
    expect((await signIn(victim, 'squatter-password')).statusCode).toBe(401);
  });

  it('a takeover leaves behind the members and invitations its creator set up', async () => {
    const victim = `team-victim-${unique()}@corp.com`;
    const accompliceEmail = `accomplice-${unique()}@evil.example`;
    const laterEmail = `later-${unique()}@evil.example`;
    // The attacker pre-registers the victim's address and invites an accomplice as admin, who
    // joins, and another, whose invitation waits.
    const attacker = await passwordAccount(victim);
    const accomplice = await passwordAccount(
      accompliceEmail,
      'accomplice-password',
      await invite(attacker.access_token, accompliceEmail, 'admin'),
    );
    expect(accomplice.team.id).toBe(attacker.team.id);
    const waitingCode = await invite(attacker.access_token, laterEmail, 'member');

    const victimSignIn = await post('/v2/users/register', providerRegistration(victim), bearer(SECRET));
    expect(victimSignIn.statusCode).toBe(200);
    const victimToken = victimSignIn.json().access_token as string;
    expect(victimSignIn.json().user.id).toBe(attacker.user.id);
    expect(victimSignIn.json().team.id).not.toBe(attacker.team.id);
    await uploadDocuments(testApp.app, victimToken, [
      { external_id: 'plan', title: 'Merger plan', text: 'The confidential zqxteamplan is due in March.' },
    ]);
    // The accomplice still signs in, to the team the attacker made (now theirs), and finds nothing of the victim's.
    expect(await searchHits(accomplice.access_token, 'zqxteamplan')).toBe(0);
    const accompliceMe = await me(accomplice.access_token);
    // The longest-standing admin owns the team its creator left.
    expect(accompliceMe.json()).toMatchObject({ team_id: attacker.team.id, role: 'owner' });
    const members = await testApp.app.inject({ url: '/v1/teams/members', headers: bearer(victimToken) });
    expect(members.json().members.map((member: { email: string }) => member.email)).toEqual([victim]);
    // The waiting invitation left the old team with the account that sent it: it leads nowhere.
    const later = await post('/v2/users/register', {
      email: laterEmail,
      password: 'later-password',
      invitation: waitingCode,
    });
    expect(later.statusCode).toBe(403);
    expect(later.json().detail).toMatch(/withdrawn/i);
  });

  it('a takeover of an account alone in its team withdraws the invitations its creator sent', async () => {
    const victim = `solo-victim-${unique()}@corp.com`;
    const accompliceEmail = `solo-accomplice-${unique()}@evil.example`;
    const attacker = await passwordAccount(victim);
    const code = await invite(attacker.access_token, accompliceEmail, 'admin');
    const victimSignIn = await post('/v2/users/register', providerRegistration(victim), bearer(SECRET));
    expect(victimSignIn.statusCode).toBe(200);
    expect(victimSignIn.json().team.id).toBe(attacker.team.id);
    const redeemed = await post('/v2/users/register', {
      email: accompliceEmail,
      password: 'accomplice-password',
      invitation: code,
    });
    expect(redeemed.statusCode).toBe(403);
    expect(redeemed.json().detail).toMatch(/withdrawn/i);
  });

  it('a verified account links another provider account only with its password or its token', async () => {
    const email = `verified-${unique()}@corp.com`;
    const first = await post('/v2/users/register', providerRegistration(email), bearer(SECRET));
    expect(first.statusCode).toBe(201);
    expect(first.json().email_verification).toBe('verified');
    const other = providerRegistration(email, { provider: 'microsoft' });
    const bySecretAlone = await post('/v2/users/register', other, bearer(SECRET));
    expect(bySecretAlone.statusCode).toBe(409);
    expect(bySecretAlone.json().detail).toMatch(/password/);
    const withoutSecret = await post('/v2/users/register', { ...other, password: 'a-guessed-password' });
    expect(withoutSecret.statusCode).toBe(409);
    const byToken = await post('/v2/users/register', other, bearer(first.json().access_token));
    expect(byToken.statusCode).toBe(200);
    expect(byToken.json().user.id).toBe(first.json().user.id);
  });

  it('spells e-mails one way: NFKC, lower case, ASCII; look-alikes are the same account or a 422', async () => {
    const local = `victim${unique()}`;
    const first = await post('/v2/users/register', {
      ...providerRegistration(`${local}@corp.com`),
      password: 'victim-password',
    });
    expect(first.statusCode).toBe(201);
    // Full-width letters fold to ASCII: the same address, so the same (already taken) account.
    const fullWidth = [...local].map((char) => String.fromCharCode(char.charCodeAt(0) + 0xfee0)).join('');
    const lookAlike = await post('/v2/users/register', {
      ...providerRegistration(`${fullWidth}@ＣＯＲＰ.com`),
      password: 'attacker-password',
    });
    expect(lookAlike.statusCode).toBe(409);
    expect((await signIn(`${fullWidth}@corp.com`, 'victim-password')).statusCode).toBe(200);
    // A Cyrillic letter in the local part is not ASCII: refused, not a second account.
    const cyrillic = await post(
      '/v2/users/register',
      providerRegistration(`v\u0456ctim-${unique()}@corp.com`),
    );
    expect(cyrillic.statusCode).toBe(422);
    expect(cyrillic.json().detail[0]).toMatchObject({ loc: ['body', 'email'], type: 'value_error' });
    // An international domain is kept in its ASCII (IDNA) form.
    const idn = await post('/v2/users/register', providerRegistration(`ann-${unique()}@bücher.de`));
    expect(idn.statusCode).toBe(201);
    expect(idn.json().user.email).toMatch(/@xn--bcher-kva\.de$/);
  });

  it('refuses passwords under 8 characters with a 422 that does not echo them', async () => {
    const response = await post('/v2/users/register', {
      ...providerRegistration(`short-${unique()}@corp.com`),
      password: 'seven77',
    });
    expect(response.statusCode).toBe(422);
    expect(response.json().detail).toMatchObject([
      {
        type: 'string_too_short',
        loc: ['body', 'password'],
        msg: 'String should have at least 8 characters',
      },
    ]);
    expect(response.body).not.toContain('seven77');
  });

  it('DELETE /v1/auth/tokens signs the user out everywhere', async () => {
    const email = `everywhere-${unique()}@corp.com`;
    const user = await registerUser(testApp.app, { email, password: 'everywhere-password' });
    const second = (await signIn(email, 'everywhere-password')).json().access_token as string;
    const other = await registerUser(testApp.app);
    const response = await testApp.app.inject({
      method: 'DELETE',
      url: '/v1/auth/tokens',
      headers: bearer(second),
    });
    expect(response.statusCode).toBe(204);
    expect((await me(user.token)).statusCode).toBe(401);
    expect((await me(second)).statusCode).toBe(401);
    expect((await me(other.token)).statusCode).toBe(200);
  });

  it("a password change keeps this session and ends the user's others", async () => {
    const email = `change-${unique()}@corp.com`;
    const user = await registerUser(testApp.app, { email, password: 'old-password' });
    const elsewhere = (await signIn(email, 'old-password')).json().access_token as string;
    const wrong = await post(
      '/v1/auth/password',
      { current_password: 'not-the-password', new_password: 'new-password' },
      bearer(user.token),
    );
    expect(wrong.statusCode).toBe(403);
    const missing = await post('/v1/auth/password', { new_password: 'new-password' }, bearer(user.token));
    expect(missing.statusCode).toBe(422);
    const changed = await post(
      '/v1/auth/password',
      { current_password: 'old-password', new_password: 'new-password' },
      bearer(user.token),
    );
    expect(changed.statusCode).toBe(204);
    expect((await me(user.token)).statusCode).toBe(200);
    expect((await me(elsewhere)).statusCode).toBe(401);
    expect((await signIn(email, 'old-password')).statusCode).toBe(401);
    expect((await signIn(email, 'new-password')).statusCode).toBe(200);
  });

  it("a new password given at registration with the user's own token and current password ends the other sessions", async () => {
    const email = `refresh-${unique()}@corp.com`;
    const record = providerRegistration(email);
    const created = (await post('/v2/users/register', { ...record, password: 'first-password' })).json();
    const elsewhere = (await signIn(email, 'first-password')).json().access_token as string;
    const refreshed = await post(
      '/v2/users/register',
      { ...record, password: 'second-password', current_password: 'first-password' },
      bearer(created.access_token),
    );
    expect(refreshed.statusCode).toBe(200);
    expect((await me(elsewhere)).statusCode).toBe(401);
    expect((await me(created.access_token)).statusCode).toBe(200);
    expect((await me(refreshed.json().access_token)).statusCode).toBe(200);
    expect((await signIn(email, 'second-password')).statusCode).toBe(200);
  });

  it('without a mail server, verification and reset say so instead of pretending', async () => {
    const user = await registerUser(testApp.app, { password: 'some-password' });
    expect(user.body.email_verification).toBe('unverified');
    const resend = await post('/v1/users/me/verify-email', undefined, bearer(user.token));
    expect(resend.statusCode).toBe(503);
    const resetKnown = await post('/v1/auth/password-reset', {
      email: (user.body.user as { email: string }).email,
    });
    expect(resetKnown.statusCode).toBe(503);
  });
});

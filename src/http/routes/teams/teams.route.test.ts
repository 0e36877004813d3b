import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  registerUser,
  startTestApp,
  type TestApp,
  uniqueSuffix,
} from '../../../../test/helpers/test-app.js';

describe('/v1/teams: invitations and members', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp();
  });
  afterAll(() => testApp.close());

  const request = (
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    token: string,
    payload?: Record<string, unknown>,
  ) =>
    testApp.app.inject({
      method,
      url,
      headers: bearer(token),
      ...(payload === undefined ? {} : { payload }),
    });

  const register = (payload: Record<string, unknown>) =>
    testApp.app.inject({ method: 'POST', url: '/v2/users/register', payload });

  /** An owner's invitation accepted through the API; answers the new member's token and id. */
  async function invited(ownerToken: string, role: 'member' | 'admin') {
    const email = `${role}-${uniqueSuffix()}@example.com`;
    const invitation = (await request('POST', '/v1/teams/invitations', ownerToken, { email, role })).json();
    const member = await registerUser(testApp.app, { email, invitation: invitation.code });
    return { ...member, email };
  }

  it('invites (201, the code shown once), lists open invitations, and registers the invitee into the team', async () => {
    const owner = await registerUser(testApp.app);
    const email = `Bob.${uniqueSuffix()}@Example.com`;
    const created = await request('POST', '/v1/teams/invitations', owner.token, { email, role: 'admin' });
    expect(created.statusCode).toBe(201);
    const invitation = created.json();
    expect(invitation).toEqual({
      invitation_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      code: expect.any(String),
      email: email.toLowerCase(),
      role: 'admin',
      expires_at: expect.any(String),
    });
    const days = (Date.parse(invitation.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.99);
    expect(days).toBeLessThanOrEqual(7);

    const listed = await request('GET', '/v1/teams/invitations', owner.token);
    expect(listed.statusCode).toBe(200);
    expect(listed.json()).toEqual({
      invitations: [
        {
          invitation_id: invitation.invitation_id,
          email: email.toLowerCase(),
          role: 'admin',
          expires_at: invitation.expires_at,
          created_at: expect.any(String),
        },
      ],
    });
    expect(listed.body).not.toContain(invitation.code);

    const joined = await register({
      email,
      password: 'bob-password',
      name: 'Bob',
      invitation: invitation.code,
    });
    expect(joined.statusCode).toBe(201);
    expect(joined.json()).toMatchObject({
      user: { team_id: owner.teamId, role: 'admin' },
      team: { id: owner.teamId, owner_user_id: owner.userId },
      email_verification: 'unverified',
    });
    const bobToken = joined.json().access_token as string;
    const me = await request('GET', '/v1/users/me', bobToken);
    expect(me.json()).toMatchObject({ team_id: owner.teamId, role: 'admin' });
    expect((await request('GET', '/v1/users/me', owner.token)).json().role).toBe('owner');
    expect((await request('GET', '/v1/teams/invitations', owner.token)).json()).toEqual({ invitations: [] });

    const members = await request('GET', '/v1/teams/members', bobToken);
    expect(members.statusCode).toBe(200);
    expect(members.json()).toEqual({
      members: [
        {
          user_id: owner.userId,
          email: expect.any(String),
          name: expect.any(String),
          role: 'owner',
          joined_at: expect.any(String),
        },
        {
          user_id: joined.json().user.id,
          email: email.toLowerCase(),
          name: 'Bob',
          role: 'admin',
          joined_at: expect.any(String),
        },
      ],
    });
  });

  it('refuses invitation codes for another e-mail, reused, withdrawn or expired: 403 saying which', async () => {
    const owner = await registerUser(testApp.app);
    const invite = async () => {
      const email = `c-${uniqueSuffix()}@example.com`;
      return {
        email,
        ...(await request('POST', '/v1/teams/invitations', owner.token, { email, role: 'member' })).json(),
      };
    };
    const first = await invite();
    const wrongEmail = await register({
      email: `x-${first.email}`,
      password: 'pass-word-1',
      invitation: first.code,
    });
    expect(wrongEmail.statusCode).toBe(403);
    expect(wrongEmail.json().detail).toContain('another e-mail');
    expect(
      (await register({ email: first.email, password: 'pass-word-1', invitation: first.code })).statusCode,
    ).toBe(201);
    const reused = await register({ email: first.email, password: 'pass-word-1', invitation: first.code });
    expect(reused.statusCode).toBe(403);
    expect(reused.json()).toEqual({ detail: 'Invitation already used' });

    const second = await invite();
    const withdrawn = await request('DELETE', `/v1/teams/invitations/${second.invitation_id}`, owner.token);
    expect(withdrawn.statusCode).toBe(204);
    expect(withdrawn.body).toBe('');
    const afterWithdrawal = await register({
      email: second.email,
      password: 'pass-word-2',
      invitation: second.code,
    });
    expect(afterWithdrawal.statusCode).toBe(403);
    expect(afterWithdrawal.json().detail).toContain('Invitation withdrawn');

    const third = await invite();
    await testApp.runtime.database.sql.executeSql(
      `UPDATE team_invitations SET expires_at = now() - interval '1 second' WHERE id = $1`,
      [third.invitation_id],
    );
    const expired = await register({ email: third.email, password: 'pass-word-3', invitation: third.code });
    expect(expired.statusCode).toBe(403);
    expect(expired.json().detail).toContain('Invitation expired');
    const unknown = await register({ email: third.email, password: 'pass-word-3', invitation: 'made-up' });
    expect(unknown.statusCode).toBe(403);
  });

  it('withdraws: 404 for an unknown, malformed or another team’s id, 409 for a used one', async () => {
    const owner = await registerUser(testApp.app);
    const stranger = await registerUser(testApp.app);
    const member = await invited(owner.token, 'member');
    const email = `d-${uniqueSuffix()}@example.com`;
    const open = (
      await request('POST', '/v1/teams/invitations', owner.token, { email, role: 'member' })
    ).json();
    for (const id of [randomUUID(), 'not-a-uuid', '1']) {
      const response = await request('DELETE', `/v1/teams/invitations/${id}`, owner.token);
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ detail: 'Invitation not found' });
    }
    expect(
      (await request('DELETE', `/v1/teams/invitations/${open.invitation_id}`, stranger.token)).statusCode,
    ).toBe(404);
    const { rows } = await testApp.runtime.database.sql.executeSql<{ id: string }>(
      'SELECT id FROM team_invitations WHERE accepted_by = $1',
      [member.userId],
    );
    const used = await request('DELETE', `/v1/teams/invitations/${rows[0]?.id}`, owner.token);
    expect(used.statusCode).toBe(409);
  });

  it('lets only owners and admins invite, list invitations and change roles: 403 for a member', async () => {
    const owner = await registerUser(testApp.app);
    const member = await invited(owner.token, 'member');
    const admin = await invited(owner.token, 'admin');
    const invitation = { email: `e-${uniqueSuffix()}@example.com`, role: 'member' };
    const refused = await request('POST', '/v1/teams/invitations', member.token, invitation);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().detail).toContain('owner and admins');
    expect((await request('GET', '/v1/teams/invitations', member.token)).statusCode).toBe(403);
    expect((await request('POST', '/v1/teams/invitations', admin.token, invitation)).statusCode).toBe(201);
    const patch = (token: string, userId: number, role: string) =>
      request('PATCH', `/v1/teams/members/${userId}`, token, { role });
    expect((await patch(member.token, member.userId, 'admin')).statusCode).toBe(403);
    const promoted = await patch(admin.token, member.userId, 'admin');
    expect(promoted.statusCode).toBe(200);
    expect(promoted.json()).toMatchObject({ user_id: member.userId, role: 'admin', email: member.email });
    expect((await request('GET', '/v1/users/me', member.token)).json().role).toBe('admin');
    expect((await patch(admin.token, member.userId, 'owner')).statusCode).toBe(403);
    expect((await patch(admin.token, owner.userId, 'member')).statusCode).toBe(403);
    expect((await patch(owner.token, owner.userId, 'admin')).statusCode).toBe(409);
    const handed = await patch(owner.token, admin.userId, 'owner');
    expect(handed.statusCode).toBe(200);
    expect((await request('GET', '/v1/users/me', owner.token)).json().role).toBe('admin');
    expect((await request('GET', '/v1/users/me', admin.token)).json().role).toBe('owner');
    expect((await patch(owner.token, 999_999, 'member')).statusCode).toBe(404);
    expect((await patch(owner.token, Number.NaN, 'member')).statusCode).toBe(404);
  });

  it('removes a member: 204, and their token is refused at once', async () => {
    const owner = await registerUser(testApp.app);
    const member = await invited(owner.token, 'member');
    expect((await request('GET', '/v1/users/me', member.token)).statusCode).toBe(200);
    expect((await request('DELETE', `/v1/teams/members/${owner.userId}`, member.token)).statusCode).toBe(403);
    const removed = await request('DELETE', `/v1/teams/members/${member.userId}`, owner.token);
    expect(removed.statusCode).toBe(204);
    const after = await request('GET', '/v1/users/me', member.token);
    expect(after.statusCode).toBe(401);
    expect((await request('GET', '/v1/teams/members', owner.token)).json().members).toHaveLength(1);
    expect((await request('DELETE', `/v1/teams/members/${member.userId}`, owner.token)).statusCode).toBe(404);
    const ownerLeaves = await request('DELETE', `/v1/teams/members/${owner.userId}`, owner.token);
    expect(ownerLeaves.statusCode).toBe(409);
  });

  // Issue 32: an admin invites a spare address as admin and keeps the code, to get back in later.
  describe('an admin’s kept invitation after they are removed or demoted', () => {
    const spareInvitation = async (adminToken: string) => {
      const email = `spare-${uniqueSuffix()}@example.com`;
      const created = await request('POST', '/v1/teams/invitations', adminToken, { email, role: 'admin' });
      expect(created.statusCode, created.body).toBe(201);
      return { email, code: (created.json() as { code: string }).code };
    };
    const usersWithEmail = async (email: string) =>
      (await testApp.runtime.database.sql.executeSql('SELECT id FROM users WHERE email = $1', [email])).rows
        .length;

    it.each([
      [
        'removed',
        (owner: string, adminId: number) => request('DELETE', `/v1/teams/members/${adminId}`, owner),
      ],
      [
        'demoted',
        (owner: string, adminId: number) =>
          request('PATCH', `/v1/teams/members/${adminId}`, owner, { role: 'member' }),
      ],
    ])('joins nothing once the admin is %s: 403, the invitation withdrawn', async (_, act) => {
      const owner = await registerUser(testApp.app);
      const admin = await invited(owner.token, 'admin');
      const spare = await spareInvitation(admin.token);
      const acted = await act(owner.token, admin.userId);
      expect(acted.statusCode, acted.body).toBeLessThan(300);

      const listed = await request('GET', '/v1/teams/invitations', owner.token);
      expect(listed.json()).toEqual({ invitations: [] });
      const attack = await register({
        email: spare.email,
        password: 'spare-password',
        invitation: spare.code,
      });
      expect(attack.statusCode, attack.body).toBe(403);
      expect(attack.json().detail).toContain('Invitation withdrawn');
      expect(await usersWithEmail(spare.email)).toBe(0);
      const members = (await request('GET', '/v1/teams/members', owner.token)).json().members as {
        email: string;
      }[];
      expect(members.map((member) => member.email)).not.toContain(spare.email);
    });

    it('keeps the owner’s and a current admin’s invitations working, and a former owner’s', async () => {
      const owner = await registerUser(testApp.app);
      const admin = await invited(owner.token, 'admin');
      const removed = await invited(owner.token, 'admin');
      const fromAdmin = await spareInvitation(admin.token);
      const fromOwner = await spareInvitation(owner.token);
      expect((await request('DELETE', `/v1/teams/members/${removed.userId}`, owner.token)).statusCode).toBe(
        204,
      );
      // The owner hands ownership to the admin, becoming an admin: their invitation stands.
      expect(
        (await request('PATCH', `/v1/teams/members/${admin.userId}`, owner.token, { role: 'owner' }))
          .statusCode,
      ).toBe(200);
      for (const invitation of [fromAdmin, fromOwner]) {
        const joined = await register({
          email: invitation.email,
          password: 'spare-password',
          invitation: invitation.code,
        });
        expect(joined.statusCode, joined.body).toBe(201);
        expect(joined.json()).toMatchObject({ user: { team_id: owner.teamId, role: 'admin' } });
      }
    });
  });

  it('validates bodies as FastAPI does: 422 at the field', async () => {
    const owner = await registerUser(testApp.app);
    const badRole = await request('POST', '/v1/teams/invitations', owner.token, {
      email: 'fay@example.com',
      role: 'owner',
    });
    expect(badRole.statusCode).toBe(422);
    expect(badRole.json().detail.map((issue: { loc: unknown }) => issue.loc)).toEqual([['body', 'role']]);
    const badEmail = await request('POST', '/v1/teams/invitations', owner.token, {
      email: 'fay',
      role: 'member',
    });
    expect(badEmail.statusCode).toBe(422);
    expect(badEmail.json().detail[0].loc).toEqual(['body', 'email']);
    const missing = await request('PATCH', `/v1/teams/members/${owner.userId}`, owner.token, {});
    expect(missing.statusCode).toBe(422);
    expect(missing.json().detail[0]).toMatchObject({ loc: ['body', 'role'], type: 'missing' });
    const anonymous = await testApp.app.inject({ url: '/v1/teams/members' });
    expect(anonymous.statusCode).toBe(401);
  });
});

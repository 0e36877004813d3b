import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, uniqueSuffix } from '../../test/helpers/test-app.js';
import { refusal, signedInUser } from '../../test/helpers/use-case-harness.js';
import { INVITATION_TTL_MS, inviteMember } from './invite-member.js';
import { listInvitations } from './list-invitations.js';
import { registerUser } from './register-user.js';

const FROM = { bearerToken: undefined, clientAddress: '203.0.113.15' };

describe('inviteMember', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp();
  });
  afterAll(() => testApp.close());

  it('makes a 7-day invitation for the normalised address, its random code stored only as a hash', async () => {
    const { deps } = testApp.runtime;
    const owner = await signedInUser(testApp);
    const local = `Bob.${uniqueSuffix()}`;
    const before = Date.now();
    const invitation = await inviteMember(deps, owner.caller, {
      email: ` ${local}@Example.COM `,
      role: 'member',
    });
    expect(invitation).toEqual({
      invitation_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      code: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      email: `${local.toLowerCase()}@example.com`,
      role: 'member',
      expires_at: expect.any(String),
    });
    const expiresIn = Date.parse(invitation.expires_at) - before;
    expect(expiresIn).toBeGreaterThanOrEqual(INVITATION_TTL_MS - 1000);
    expect(expiresIn).toBeLessThanOrEqual(INVITATION_TTL_MS + 5000);
    const { rows } = await testApp.runtime.database.sql.executeSql<Record<string, unknown>>(
      'SELECT * FROM team_invitations WHERE id = $1',
      [invitation.invitation_id],
    );
    expect(rows[0]).toMatchObject({
      team_id: owner.caller.teamId,
      invited_by: owner.caller.userId,
      code_hash: createHash('sha256').update(invitation.code).digest('hex'),
    });
    expect(JSON.stringify(rows)).not.toContain(invitation.code);
    const another = await inviteMember(deps, owner.caller, {
      email: `x-${uniqueSuffix()}@example.com`,
      role: 'admin',
    });
    expect(another.code).not.toBe(invitation.code);
  });

  it('refuses an address registration would refuse (422), and one already in the team (409)', async () => {
    const { deps } = testApp.runtime;
    const owner = await signedInUser(testApp);
    const invalid = await refusal(
      inviteMember(deps, owner.caller, { email: 'not-an-address', role: 'member' }),
      'validation',
    );
    expect(invalid.options.issues?.map((issue) => issue.loc)).toEqual([['body', 'email']]);
    await refusal(
      inviteMember(deps, owner.caller, { email: 'v\u0456ctim@example.com', role: 'member' }),
      'validation',
    );
    const taken = await refusal(
      inviteMember(deps, owner.caller, { email: owner.caller.email.toUpperCase(), role: 'member' }),
      'conflict',
    );
    expect(taken.message).toContain('already a member');
  });

  it('lets owners and admins invite, never members (403)', async () => {
    const { deps } = testApp.runtime;
    const owner = await signedInUser(testApp);
    const invitee = (role: 'member' | 'admin') => ({ email: `${role}-${uniqueSuffix()}@example.com`, role });
    const join = async (role: 'member' | 'admin') => {
      const { email } = invitee(role);
      const { code } = await inviteMember(deps, owner.caller, { email, role });
      const registered = await registerUser(
        deps,
        { email, password: `${role}-password`, invitation: code },
        FROM,
      );
      return (await deps.callers.find(registered.body.access_token)) ?? expect.fail('no caller');
    };
    const admin = await join('admin');
    const member = await join('member');
    await expect(inviteMember(deps, admin, invitee('member'))).resolves.toMatchObject({ role: 'member' });
    const refused = await refusal(inviteMember(deps, member, invitee('member')), 'forbidden');
    expect(refused.message).toContain('owner and admins');
  });

  it('a new invitation for an address withdraws the open one: only the latest code works', async () => {
    const { deps } = testApp.runtime;
    const owner = await signedInUser(testApp);
    const email = `twice-${uniqueSuffix()}@example.com`;
    const first = await inviteMember(deps, owner.caller, { email, role: 'member' });
    const second = await inviteMember(deps, owner.caller, { email, role: 'admin' });
    expect((await listInvitations(deps, owner.caller)).invitations.map((open) => open.invitation_id)).toEqual(
      [second.invitation_id],
    );
    const old = await refusal(
      registerUser(deps, { email, password: 'pat-password', invitation: first.code }, FROM),
      'forbidden',
    );
    expect(old.message).toContain('withdrawn');
    const joined = await registerUser(
      deps,
      { email, password: 'pat-password', invitation: second.code },
      FROM,
    );
    expect(joined.body.user).toMatchObject({ team_id: owner.caller.teamId, role: 'admin' });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, uniqueSuffix } from '../../test/helpers/test-app.js';
import {
  invitedMember,
  refusal,
  type SignedInUser,
  signedInUser,
} from '../../test/helpers/use-case-harness.js';
import { changeMemberRole } from './change-member-role.js';
import { inviteMember } from './invite-member.js';
import { listInvitations } from './list-invitations.js';
import { listMembers } from './list-members.js';
import { registerUser } from './register-user.js';

describe('changeMemberRole', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp();
  });
  afterAll(() => testApp.close());

  /** An owner with an admin and two members. */
  async function team() {
    const owner = await signedInUser(testApp);
    const join = (role: 'member' | 'admin'): Promise<SignedInUser> => invitedMember(testApp, owner, role);
    return { owner, admin: await join('admin'), member: await join('member'), other: await join('member') };
  }

  const roles = async (user: SignedInUser) =>
    Object.fromEntries(
      (await listMembers(testApp.runtime.deps, user.caller)).members.map((member) => [
        member.user_id,
        member.role,
      ]),
    );

  it('lets owners and admins make and unmake admins; the new role applies to the member’s next request', async () => {
    const { deps } = testApp.runtime;
    const { owner, admin, member, other } = await team();
    // Cached with the old role first.
    expect((await deps.callers.find(member.token))?.role).toBe('member');
    const promoted = await changeMemberRole(deps, owner.caller, String(member.caller.userId), 'admin');
    expect(promoted).toEqual({
      user_id: member.caller.userId,
      email: member.caller.email,
      name: expect.any(String),
      role: 'admin',
      joined_at: expect.any(String),
    });
    expect((await deps.callers.find(member.token))?.role).toBe('admin');
    await changeMemberRole(deps, admin.caller, String(member.caller.userId), 'member');
    await changeMemberRole(deps, admin.caller, String(other.caller.userId), 'admin');
    // An admin may step down.
    await changeMemberRole(deps, admin.caller, String(admin.caller.userId), 'member');
    expect(await roles(owner)).toEqual({
      [owner.caller.userId]: 'owner',
      [admin.caller.userId]: 'member',
      [member.caller.userId]: 'member',
      [other.caller.userId]: 'admin',
    });
    // The same role again changes nothing.
    await expect(
      changeMemberRole(deps, owner.caller, String(other.caller.userId), 'admin'),
    ).resolves.toMatchObject({
      role: 'admin',
    });
  });

  it('keeps exactly one owner: only the owner hands ownership over, becoming an admin', async () => {
    const { deps } = testApp.runtime;
    const { owner, admin, member, other } = await team();
    const notByAdmin = await refusal(
      changeMemberRole(deps, admin.caller, String(member.caller.userId), 'owner'),
      'forbidden',
    );
    expect(notByAdmin.message).toContain('owner');
    await refusal(changeMemberRole(deps, admin.caller, String(owner.caller.userId), 'member'), 'forbidden');
    const selfDemotion = await refusal(
      changeMemberRole(deps, owner.caller, String(owner.caller.userId), 'admin'),
      'conflict',
    );
    expect(selfDemotion.message).toContain('one owner');

    const handed = await changeMemberRole(deps, owner.caller, String(member.caller.userId), 'owner');
    expect(handed.role).toBe('owner');
    expect(await roles(owner)).toEqual({
      [owner.caller.userId]: 'admin',
      [admin.caller.userId]: 'admin',
      [member.caller.userId]: 'owner',
      [other.caller.userId]: 'member',
    });
    const { rows } = await testApp.runtime.database.sql.executeSql<{ owner_user_id: number }>(
      'SELECT owner_user_id FROM teams WHERE id = $1',
      [owner.caller.teamId],
    );
    expect(Number(rows[0]?.owner_user_id)).toBe(member.caller.userId);
    // The old owner's cached role is gone at once: as an admin they cannot hand ownership back.
    const formerOwner = (await deps.callers.find(owner.token)) ?? expect.fail('no caller');
    expect(formerOwner.role).toBe('admin');
    await refusal(changeMemberRole(deps, formerOwner, String(owner.caller.userId), 'owner'), 'forbidden');
    // Even a stale caller claiming to be the owner is checked against the stored roles.
    await refusal(changeMemberRole(deps, owner.caller, String(admin.caller.userId), 'owner'), 'forbidden');
  });

  it('refuses members (403), and users who are not in the team or ids that name nobody (404)', async () => {
    const { deps } = testApp.runtime;
    const { owner, member, other } = await team();
    const stranger = await signedInUser(testApp);
    const refused = await refusal(
      changeMemberRole(deps, member.caller, String(other.caller.userId), 'admin'),
      'forbidden',
    );
    expect(refused.message).toContain('owner and admins');
    await refusal(changeMemberRole(deps, member.caller, String(member.caller.userId), 'admin'), 'forbidden');
    await refusal(changeMemberRole(deps, owner.caller, String(stranger.caller.userId), 'admin'), 'not_found');
    await refusal(changeMemberRole(deps, owner.caller, 'nobody', 'admin'), 'not_found');
    await refusal(changeMemberRole(deps, owner.caller, '99999999999', 'admin'), 'not_found');
    await refusal(
      changeMemberRole(deps, owner.caller, String(other.caller.userId), 'boss' as never),
      'validation',
    );
    expect((await roles(stranger))[stranger.caller.userId]).toBe('owner');
  });

  it('withdraws the open invitations of an admin made a member; an owner handing over keeps theirs', async () => {
    const { deps } = testApp.runtime;
    const { owner, admin, member } = await team();
    const invite = async (by: SignedInUser) => {
      const email = `spare-${uniqueSuffix()}@example.com`;
      return inviteMember(deps, by.caller, { email, role: 'admin' });
    };
    const register = (invitation: { email: string; code: string }) =>
      registerUser(
        deps,
        { email: invitation.email, password: 'spare-password', invitation: invitation.code },
        { bearerToken: undefined, clientAddress: '203.0.113.9' },
      );
    const fromAdmin = await invite(admin);
    const fromOwner = await invite(owner);

    await changeMemberRole(deps, owner.caller, String(admin.caller.userId), 'member');
    const open = (await listInvitations(deps, owner.caller)).invitations.map(
      (listed) => listed.invitation_id,
    );
    expect(open).toEqual([fromOwner.invitation_id]);
    expect((await refusal(register(fromAdmin), 'forbidden')).message).toContain('Invitation withdrawn');

    // The owner hands ownership over and becomes an admin: their invitation still works.
    await changeMemberRole(deps, owner.caller, String(member.caller.userId), 'owner');
    await expect(register(fromOwner)).resolves.toMatchObject({
      body: { user: { team_id: owner.caller.teamId, role: 'admin' } },
    });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, uniqueSuffix } from '../../test/helpers/test-app.js';
import { refusal, signedInUser } from '../../test/helpers/use-case-harness.js';
import { inviteMember } from './invite-member.js';
import { listInvitations } from './list-invitations.js';
import { registerUser } from './register-user.js';
import { withdrawInvitation } from './withdraw-invitation.js';

const FROM = { bearerToken: undefined, clientAddress: '203.0.113.16' };

describe('listInvitations', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp();
  });
  afterAll(() => testApp.close());

  it('lists the team’s open invitations, newest first, without codes: not used, withdrawn or expired ones', async () => {
    const { deps } = testApp.runtime;
    const owner = await signedInUser(testApp);
    const stranger = await signedInUser(testApp);
    const invite = (role: 'member' | 'admin' = 'member') =>
      inviteMember(deps, owner.caller, { email: `i-${uniqueSuffix()}@example.com`, role });
    const open = await invite('admin');
    const used = await invite();
    await registerUser(deps, { email: used.email, password: 'used-password', invitation: used.code }, FROM);
    const withdrawn = await invite();
    await withdrawInvitation(deps, owner.caller, withdrawn.invitation_id);
    const expired = await invite();
    await testApp.runtime.database.sql.executeSql(
      `UPDATE team_invitations SET expires_at = now() - interval '1 second' WHERE id = $1`,
      [expired.invitation_id],
    );
    const newest = await invite();
    await inviteMember(deps, stranger.caller, { email: `s-${uniqueSuffix()}@example.com`, role: 'member' });

    const listed = await listInvitations(deps, owner.caller);
    expect(listed.invitations).toEqual([
      {
        invitation_id: newest.invitation_id,
        email: newest.email,
        role: 'member',
        expires_at: newest.expires_at,
        created_at: expect.any(String),
      },
      {
        invitation_id: open.invitation_id,
        email: open.email,
        role: 'admin',
        expires_at: open.expires_at,
        created_at: expect.any(String),
      },
    ]);
    expect(JSON.stringify(listed)).not.toContain(open.code);
  });

  it('is for owners and admins: a member gets 403', async () => {
    const { deps } = testApp.runtime;
    const owner = await signedInUser(testApp);
    await refusal(listInvitations(deps, { ...owner.caller, role: 'member' }), 'forbidden');
    await expect(listInvitations(deps, { ...owner.caller, role: 'admin' })).resolves.toEqual({
      invitations: [],
    });
  });
});

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, uniqueSuffix } from '../../test/helpers/test-app.js';
import { refusal, signedInUser } from '../../test/helpers/use-case-harness.js';
import { inviteMember } from './invite-member.js';
import { listInvitations } from './list-invitations.js';
import { registerUser } from './register-user.js';
import { withdrawInvitation } from './withdraw-invitation.js';

const FROM = { bearerToken: undefined, clientAddress: '203.0.113.17' };

describe('withdrawInvitation', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp();
  });
  afterAll(() => testApp.close());

  it('withdraws the invitation: its code registers nobody, and withdrawing again changes nothing', async () => {
    const { deps } = testApp.runtime;
    const owner = await signedInUser(testApp);
    const email = `w-${uniqueSuffix()}@example.com`;
    const invitation = await inviteMember(deps, owner.caller, { email, role: 'member' });
    await withdrawInvitation(deps, owner.caller, invitation.invitation_id.toUpperCase());
    expect((await listInvitations(deps, owner.caller)).invitations).toEqual([]);
    const refused = await refusal(
      registerUser(deps, { email, password: 'pat-password', invitation: invitation.code }, FROM),
      'forbidden',
    );
    expect(refused.message).toContain('Invitation withdrawn');
    await withdrawInvitation(deps, owner.caller, invitation.invitation_id);
  });

  it('answers 404 for another team’s invitation, an unknown id and a malformed one; 409 for a used one', async () => {
    const { deps } = testApp.runtime;
    const owner = await signedInUser(testApp);
    const stranger = await signedInUser(testApp);
    const email = `u-${uniqueSuffix()}@example.com`;
    const invitation = await inviteMember(deps, owner.caller, { email, role: 'member' });
    await refusal(withdrawInvitation(deps, stranger.caller, invitation.invitation_id), 'not_found');
    await refusal(withdrawInvitation(deps, owner.caller, randomUUID()), 'not_found');
    await refusal(withdrawInvitation(deps, owner.caller, 'not-a-uuid'), 'not_found');
    await registerUser(deps, { email, password: 'pat-password', invitation: invitation.code }, FROM);
    const used = await refusal(withdrawInvitation(deps, owner.caller, invitation.invitation_id), 'conflict');
    expect(used.message).toContain('already used');
  });

  it('is for owners and admins: a member gets 403', async () => {
    const { deps } = testApp.runtime;
    const owner = await signedInUser(testApp);
    const invitation = await inviteMember(deps, owner.caller, {
      email: `m-${uniqueSuffix()}@example.com`,
      role: 'member',
    });
    await refusal(
      withdrawInvitation(deps, { ...owner.caller, role: 'member' }, invitation.invitation_id),
      'forbidden',
    );
    expect((await listInvitations(deps, owner.caller)).invitations).toHaveLength(1);
  });
});

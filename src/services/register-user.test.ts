import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startTestApp,
  TEST_REGISTRATION_SECRET,
  type TestApp,
  uniqueSuffix,
} from '../../test/helpers/test-app.js';
import { refusal, signedInUser } from '../../test/helpers/use-case-harness.js';
import { getUserContext } from './get-user-context.js';
import { inviteMember } from './invite-member.js';
import { listMembers } from './list-members.js';
import { registerUser } from './register-user.js';
import { withdrawInvitation } from './withdraw-invitation.js';

const FROM = { bearerToken: undefined, clientAddress: '203.0.113.7' };

describe('registerUser', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp();
  });
  afterAll(() => testApp.close());

  it('creates a user with their own team and vector store, signed in by the token it answers', async () => {
    const { deps } = testApp.runtime;
    const email = `Ann.${uniqueSuffix()}@Example.com`;
    const result = await registerUser(deps, { email, password: 'ann-password', name: 'Ann' }, FROM);
    expect(result.created).toBe(true);
    expect(result.body.user).toMatchObject({ email: email.toLowerCase(), name: 'Ann' });
    // Nobody vouched for the address and there is no mail server: it stays unproven.
    expect(result.body.email_verification).toBe('unverified');
    const caller = await deps.callers.find(result.body.access_token);
    expect(caller).toMatchObject({ userId: result.body.user.id, teamId: result.body.team.id });
    const context = await getUserContext(deps, caller ?? expect.fail('no caller'));
    expect(context.vector_store).toMatchObject({
      id: result.body.vector_store.id,
      namespaces: [`team-${result.body.team.id}`],
    });
    const other = await registerUser(
      deps,
      { email: `bo-${uniqueSuffix()}@example.com`, password: 'bo-password' },
      FROM,
    );
    expect(other.body.team.id).not.toBe(result.body.team.id);
  });

  it('counts the address as proven only when the front end’s secret vouches for it', async () => {
    const { deps } = testApp.runtime;
    const trusted = await registerUser(
      deps,
      {
        provider: 'google',
        provider_account_id: `g-${uniqueSuffix()}`,
        email: `cy-${uniqueSuffix()}@example.com`,
      },
      { bearerToken: TEST_REGISTRATION_SECRET, clientAddress: FROM.clientAddress },
    );
    expect(trusted.body.email_verification).toBe('verified');
    const wrongSecret = await registerUser(
      deps,
      {
        provider: 'google',
        provider_account_id: `g-${uniqueSuffix()}`,
        email: `di-${uniqueSuffix()}@example.com`,
      },
      { bearerToken: 'not-the-secret', clientAddress: FROM.clientAddress },
    );
    expect(wrongSecret.body.email_verification).toBe('unverified');
  });

  it('refuses a second registration of an e-mail without proof, and refreshes it with the password', async () => {
    const { deps } = testApp.runtime;
    const email = `eve-${uniqueSuffix()}@example.com`;
    const first = await registerUser(deps, { email, password: 'eve-password' }, FROM);
    const again = await refusal(registerUser(deps, { email, password: 'wrong-password' }, FROM), 'conflict');
    expect(again.message).toContain('already registered');
    const refreshed = await registerUser(deps, { email, password: 'eve-password', name: 'Eve' }, FROM);
    expect(refreshed.created).toBe(false);
    expect(refreshed.body.user).toMatchObject({ id: first.body.user.id, name: 'Eve' });
    expect(refreshed.body.team.id).toBe(first.body.team.id);
  });

  it('reports every problem of a password sign-up in one validation error', async () => {
    const error = await refusal(
      registerUser(testApp.runtime.deps, { email: 'not-an-address', password: 'short' }, FROM),
      'validation',
    );
    expect(error.options.issues?.map((issue) => issue.loc)).toEqual([
      ['body', 'email'],
      ['body', 'password'],
    ]);
  });

  describe('with an invitation', () => {
    const invite = async (role: 'member' | 'admin' = 'member') => {
      const owner = await signedInUser(testApp);
      const email = `inv-${uniqueSuffix()}@example.com`;
      const invitation = await inviteMember(testApp.runtime.deps, owner.caller, { email, role });
      return { owner, email, invitation };
    };

    it('joins the inviter’s team with the invitation’s role instead of a team of its own, its e-mail still unproven (the inviter saw the code)', async () => {
      const { deps } = testApp.runtime;
      const { owner, email, invitation } = await invite('admin');
      const result = await registerUser(
        deps,
        // Another spelling of the invited address is the same address.
        { email: email.toUpperCase(), password: 'bob-password', name: 'Bob', invitation: invitation.code },
        FROM,
      );
      expect(result.created).toBe(true);
      expect(result.body.user).toMatchObject({ email, team_id: owner.caller.teamId, role: 'admin' });
      expect(result.body.team.id).toBe(owner.caller.teamId);
      expect(result.body.team.owner_user_id).toBe(owner.caller.userId);
      expect(result.body.vector_store.namespaces).toEqual([`team-${owner.caller.teamId}`]);
      expect(result.body.email_verification).toBe('unverified');
      const caller = await deps.callers.find(result.body.access_token);
      expect(caller).toMatchObject({ teamId: owner.caller.teamId, role: 'admin' });
      expect((await getUserContext(deps, caller ?? expect.fail('no caller'))).role).toBe('admin');
      const members = (await listMembers(deps, owner.caller)).members;
      expect(members.map((member) => [member.user_id, member.role])).toEqual([
        [owner.caller.userId, 'owner'],
        [result.body.user.id, 'admin'],
      ]);
      const { rows } = await testApp.runtime.database.sql.executeSql<{ accepted_by: number }>(
        'SELECT accepted_by FROM team_invitations WHERE id = $1 AND accepted_at IS NOT NULL',
        [invitation.invitation_id],
      );
      expect(rows.map((row) => Number(row.accepted_by))).toEqual([result.body.user.id]);
    });

    it('refuses a code for another e-mail, and one that is unknown, reused, withdrawn or expired: 403 saying which', async () => {
      const { deps } = testApp.runtime;
      const register = (email: string, code: string) =>
        registerUser(deps, { email, password: 'some-password', invitation: code }, FROM);

      const { email, invitation } = await invite();
      const wrongEmail = await refusal(
        register(`someone-else-${uniqueSuffix()}@example.com`, invitation.code),
        'forbidden',
      );
      expect(wrongEmail.message).toContain('another e-mail');
      const unknown = await refusal(register(email, 'not-a-code'), 'forbidden');
      expect(unknown.message).toContain('Invitation not found');

      await register(email, invitation.code);
      const reused = await refusal(register(`again-${email}`, invitation.code), 'forbidden');
      expect(reused.message).toBe('Invitation already used');

      const withdrawn = await invite();
      await withdrawInvitation(deps, withdrawn.owner.caller, withdrawn.invitation.invitation_id);
      const refusedWithdrawn = await refusal(
        register(withdrawn.email, withdrawn.invitation.code),
        'forbidden',
      );
      expect(refusedWithdrawn.message).toContain('Invitation withdrawn');

      const expired = await invite();
      await testApp.runtime.database.sql.executeSql(
        `UPDATE team_invitations SET expires_at = now() - interval '1 minute' WHERE id = $1`,
        [expired.invitation.invitation_id],
      );
      const refusedExpired = await refusal(register(expired.email, expired.invitation.code), 'forbidden');
      expect(refusedExpired.message).toContain('Invitation expired');
      // Nobody was registered by the refused codes.
      for (const address of [withdrawn.email, expired.email]) {
        const { rows } = await testApp.runtime.database.sql.executeSql(
          'SELECT id FROM users WHERE email = $1',
          [address],
        );
        expect(rows).toEqual([]);
      }
    });

    it('two registrations with one code: one joins, the other is refused', async () => {
      const { deps } = testApp.runtime;
      const { email, invitation } = await invite();
      const outcomes = await Promise.allSettled([
        registerUser(deps, { email, password: 'first-password', invitation: invitation.code }, FROM),
        registerUser(
          deps,
          {
            provider: 'google',
            provider_account_id: `g-${uniqueSuffix()}`,
            email,
            invitation: invitation.code,
          },
          FROM,
        ),
      ]);
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    });

    it('moves an existing user (with proof) whose own team holds nothing else, and deletes that team', async () => {
      const { deps } = testApp.runtime;
      const { owner, email, invitation } = await invite();
      const first = await registerUser(deps, { email, password: 'cy-password' }, FROM);
      const oldTeam = first.body.team.id;
      const moved = await registerUser(
        deps,
        { email, password: 'cy-password', invitation: invitation.code },
        FROM,
      );
      expect(moved.created).toBe(false);
      expect(moved.body.user).toMatchObject({
        id: first.body.user.id,
        team_id: owner.caller.teamId,
        role: 'member',
      });
      // The token from before the move now reads the new team at once.
      expect(await deps.callers.find(first.body.access_token)).toMatchObject({
        teamId: owner.caller.teamId,
        role: 'member',
      });
      const { rows } = await testApp.runtime.database.sql.executeSql('SELECT id FROM teams WHERE id = $1', [
        oldTeam,
      ]);
      expect(rows).toEqual([]);
    });

    it('does not move a user whose team has other members, or without proof of the account', async () => {
      const { deps } = testApp.runtime;
      const elsewhere = await invite();
      const { owner } = elsewhere;
      // The owner of a team that has a member is invited to another team.
      await registerUser(
        deps,
        { email: elsewhere.email, password: 'member-password', invitation: elsewhere.invitation.code },
        FROM,
      );
      const ownerEmail = owner.caller.email;
      const other = await signedInUser(testApp);
      const invitation = await inviteMember(deps, other.caller, { email: ownerEmail, role: 'member' });
      const stays = await refusal(
        registerUser(
          deps,
          {
            email: ownerEmail,
            invitation: invitation.code,
            provider: 'google',
            provider_account_id: `g-${uniqueSuffix()}`,
          },
          {
            bearerToken: owner.token,
            clientAddress: FROM.clientAddress,
          },
        ),
        'conflict',
      );
      expect(stays.message).toContain('other members');
      // An invitation alone is no proof of an existing account.
      const noProof = await refusal(
        registerUser(
          deps,
          { email: ownerEmail, password: 'guessed-password', invitation: invitation.code },
          FROM,
        ),
        'conflict',
      );
      expect(noProof.message).toContain('already registered');
      expect((await deps.callers.find(owner.token))?.teamId).toBe(owner.caller.teamId);
    });

    it('refuses a Slack code with a member’s invitation: members do not change the Slack connection', async () => {
      const { email, invitation } = await invite('member');
      await refusal(
        registerUser(
          testApp.runtime.deps,
          { email, password: 'dee-password', invitation: invitation.code, chatappCode: 'slack-code' },
          FROM,
        ),
        'forbidden',
      );
    });
  });
});

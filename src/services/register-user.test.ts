import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeSlackServer } from '../../test/fakes/fake-slack-server.js';
import {
  startTestApp,
  TEST_REGISTRATION_SECRET,
  type TestApp,
  uniqueSuffix,
} from '../../test/helpers/test-app.js';
import { invitedMember, refusal, signedInUser } from '../../test/helpers/use-case-harness.js';
import type { SlackOAuth } from '../adapters/slack/slack-oauth.js';
import { changeMemberRole } from './change-member-role.js';
import { getUserContext } from './get-user-context.js';
import { NOT_AN_INSTALLER } from './install-slack-app.js';
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

  describe('with a new password and the user’s own token', () => {
    const failedAttempts = async (userId: number) => {
      const { rows } = await testApp.runtime.database.sql.executeSql<{ count: number }>(
        'SELECT count FROM auth_throttles WHERE key = $1',
        [`password:account:user:${userId}`],
      );
      return rows.map((row) => Number(row.count));
    };
    const storedHash = async (userId: number) => {
      const { rows } = await testApp.runtime.database.sql.executeSql<{ password_hash: string | null }>(
        'SELECT password_hash FROM users WHERE id = $1',
        [userId],
      );
      return rows[0]?.password_hash;
    };

    it('changes it only with the current one (403 otherwise, nothing changed); the same password again is a plain refresh', async () => {
      const { deps } = testApp.runtime;
      const email = `pw-${uniqueSuffix()}@example.com`;
      const first = await registerUser(deps, { email, password: 'old-password' }, FROM);
      const userId = first.body.user.id;
      const own = { bearerToken: first.body.access_token, clientAddress: FROM.clientAddress };
      const hashBefore = await storedHash(userId);

      const noCurrent = await refusal(
        registerUser(deps, { email, password: 'new-password' }, own),
        'forbidden',
      );
      expect(noCurrent.message).toContain('current_password');
      const wrongCurrent = await refusal(
        registerUser(deps, { email, password: 'new-password', current_password: 'not-the-password' }, own),
        'forbidden',
      );
      expect(wrongCurrent.message).toBe('The current password is not correct');
      // Both count as failed password attempts: the token is no free oracle for guessing it.
      expect(await failedAttempts(userId)).toEqual([2]);
      expect(await storedHash(userId)).toBe(hashBefore);
      expect(await deps.callers.find(first.body.access_token)).toMatchObject({ userId });

      // A client registering again with the stored password: a refresh, and no failure counted.
      await registerUser(deps, { email, password: 'old-password' }, FROM);
      expect(await failedAttempts(userId)).toEqual([]);
      const again = await registerUser(deps, { email, password: 'old-password', name: 'Again' }, own);
      expect(again).toMatchObject({ created: false, body: { user: { id: userId, name: 'Again' } } });
      expect(await failedAttempts(userId)).toEqual([]);
      expect(await storedHash(userId)).toBe(hashBefore);

      const changed = await registerUser(
        deps,
        { email, password: 'new-password', current_password: 'old-password' },
        own,
      );
      expect(changed.created).toBe(false);
      expect(await storedHash(userId)).not.toBe(hashBefore);
      await refusal(registerUser(deps, { email, password: 'old-password' }, FROM), 'conflict');
      await expect(registerUser(deps, { email, password: 'new-password' }, FROM)).resolves.toMatchObject({
        created: false,
      });
    });

    it('gives an account without a password none this way: 403 pointing to a reset', async () => {
      const { deps } = testApp.runtime;
      const user = await signedInUser(testApp);
      const refused = await refusal(
        registerUser(
          deps,
          { email: user.caller.email, password: 'chosen-password', current_password: 'anything-at-all' },
          { bearerToken: user.token, clientAddress: FROM.clientAddress },
        ),
        'forbidden',
      );
      expect(refused.message).toContain('password reset');
      expect(await storedHash(user.caller.userId)).toBeNull();
      const { rows } = await testApp.runtime.database.sql.executeSql(
        "SELECT id FROM accounts WHERE user_id = $1 AND provider = 'credentials'",
        [user.caller.userId],
      );
      expect(rows).toEqual([]);
    });
  });

  describe('with a chatappCode', () => {
    const CLIENT_ID = '7777777777.8888888888';
    let slack: FakeSlackServer;
    let slackApp: TestApp;
    beforeAll(async () => {
      slack = await FakeSlackServer.start();
      slack.registerApp({ clientId: CLIENT_ID, clientSecret: 'register-user-test-secret' });
      slackApp = await startTestApp({
        env: {
          SLACK_CLIENT_ID: CLIENT_ID,
          SLACK_CLIENT_SECRET: 'register-user-test-secret',
          SLACK_API_URL: slack.url,
        },
      });
    });
    afterAll(async () => {
      await slackApp?.close();
      await slack?.close();
    });

    /** A fresh code for a fresh workspace; answers the code and the workspace's id. */
    const slackCode = () => {
      const workspace = `T0${uniqueSuffix().toUpperCase()}`;
      const code = `code-${workspace}`;
      slack.issueCode(code, CLIENT_ID, { teamId: workspace });
      return { code, workspace };
    };
    const exchanges = (code: string) =>
      slack.callsTo('oauth.v2.access').filter((call) => call.body.code === code).length;
    const installedIn = async (workspace: string) => {
      const { rows } = await slackApp.runtime.database.sql.executeSql<{ team_id: number }>(
        'SELECT team_id FROM connectors WHERE external_id = $1',
        [workspace],
      );
      return rows.map((row) => Number(row.team_id));
    };
    /** Slack's exchange through the real adapter, with `meanwhile` done first (a change under way). */
    const slackWith = (meanwhile: () => Promise<unknown>): SlackOAuth => {
      const real = slackApp.runtime.deps.slackOAuth ?? expect.fail('Slack is configured');
      return {
        async exchangeCode(code) {
          await meanwhile();
          return real.exchangeCode(code);
        },
      };
    };

    it('installs for who will be an owner or admin; anyone else is refused (403) before Slack is asked', async () => {
      const { deps } = slackApp.runtime;
      const newOwner = slackCode();
      const created = await registerUser(
        deps,
        {
          email: `own-${uniqueSuffix()}@example.com`,
          password: 'owner-password',
          chatappCode: newOwner.code,
        },
        FROM,
      );
      expect(created.body.chatapp).toMatchObject({ status: 'installed', slack_team_id: newOwner.workspace });

      const owner = await signedInUser(slackApp);
      const member = await invitedMember(slackApp, owner, 'member');
      const byMember = slackCode();
      const refused = await refusal(
        registerUser(
          deps,
          {
            provider: 'google',
            provider_account_id: `g-${uniqueSuffix()}`,
            email: member.caller.email,
            chatappCode: byMember.code,
          },
          { bearerToken: member.token, clientAddress: FROM.clientAddress },
        ),
        'forbidden',
      );
      expect(refused.message).toContain(NOT_AN_INSTALLER);
      const memberInvitation = await inviteMember(deps, owner.caller, {
        email: `m-${uniqueSuffix()}@example.com`,
        role: 'member',
      });
      await refusal(
        registerUser(
          deps,
          {
            email: memberInvitation.email,
            password: 'member-password',
            invitation: memberInvitation.code,
            chatappCode: byMember.code,
          },
          FROM,
        ),
        'forbidden',
      );
      expect(exchanges(byMember.code)).toBe(0);
      expect(await installedIn(byMember.workspace)).toEqual([]);

      const admin = await invitedMember(slackApp, owner, 'admin');
      const byAdmin = await registerUser(
        deps,
        {
          provider: 'google',
          provider_account_id: `g-${uniqueSuffix()}`,
          email: admin.caller.email,
          chatappCode: byMember.code,
        },
        { bearerToken: admin.token, clientAddress: FROM.clientAddress },
      );
      expect(byAdmin.body.chatapp).toMatchObject({ status: 'installed', slack_team_id: byMember.workspace });
      expect(await installedIn(byMember.workspace)).toEqual([owner.caller.teamId]);
    });

    it('reads the role again as it saves: an admin demoted while Slack answered installs nothing, changes nothing', async () => {
      const { deps } = slackApp.runtime;
      const owner = await signedInUser(slackApp);
      const admin = await invitedMember(slackApp, owner, 'admin');
      const { code, workspace } = slackCode();
      const providerAccountId = `g-${uniqueSuffix()}`;
      const demoted = slackWith(() =>
        changeMemberRole(deps, owner.caller, String(admin.caller.userId), 'member'),
      );
      const refused = await refusal(
        registerUser(
          { ...deps, slackOAuth: demoted },
          {
            provider: 'google',
            provider_account_id: providerAccountId,
            email: admin.caller.email,
            chatappCode: code,
          },
          { bearerToken: admin.token, clientAddress: FROM.clientAddress },
        ),
        'forbidden',
      );
      expect(refused.message).toContain(NOT_AN_INSTALLER);
      expect(await installedIn(workspace)).toEqual([]);
      const { rows } = await slackApp.runtime.database.sql.executeSql(
        'SELECT id FROM accounts WHERE provider_account_id = $1',
        [providerAccountId],
      );
      expect(rows).toEqual([]);
    });

    it('reads the inviter again in the transaction: one demoted while the registration ran lets nobody in', async () => {
      const { deps } = slackApp.runtime;
      const { sql } = slackApp.runtime.database;
      const owner = await signedInUser(slackApp);
      const admin = await invitedMember(slackApp, owner, 'admin');
      const email = `spare-${uniqueSuffix()}@example.com`;
      const invitation = await inviteMember(deps, admin.caller, { email, role: 'admin' });
      const { code, workspace } = slackCode();
      // Behind the service's back, so the invitation itself stays open: only the use-time check refuses.
      const demoted = slackWith(() =>
        sql.executeSql("UPDATE users SET role = 'member' WHERE id = $1", [admin.caller.userId]),
      );
      const refused = await refusal(
        registerUser(
          { ...deps, slackOAuth: demoted },
          { email, password: 'spare-password', invitation: invitation.code, chatappCode: code },
          FROM,
        ),
        'forbidden',
      );
      expect(refused.message).toContain('Invitation withdrawn');
      expect(await installedIn(workspace)).toEqual([]);
      const { rows } = await sql.executeSql('SELECT id FROM users WHERE email = $1', [email]);
      expect(rows).toEqual([]);
    });
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

    it('counts only while its inviter is an owner or admin of the team: one gone or demoted reads as withdrawn', async () => {
      const { deps } = testApp.runtime;
      const { sql } = testApp.runtime.database;
      const owner = await signedInUser(testApp);
      const inviteBy = (inviter: typeof owner) =>
        inviteMember(deps, inviter.caller, { email: `by-${uniqueSuffix()}@example.com`, role: 'admin' });
      const register = (invitation: { email: string; code: string }) =>
        registerUser(
          deps,
          { email: invitation.email, password: 'some-password', invitation: invitation.code },
          FROM,
        );

      // A current admin's invitation, and the owner's, still work.
      const admin = await invitedMember(testApp, owner, 'admin');
      await expect(register(await inviteBy(admin))).resolves.toMatchObject({
        body: { user: { role: 'admin' } },
      });
      await expect(register(await inviteBy(owner))).resolves.toMatchObject({ created: true });

      // Invitations left open (made before withdrawals existed, say): the inviter is checked at use.
      const demotedAdmin = await invitedMember(testApp, owner, 'admin');
      const fromDemoted = await inviteBy(demotedAdmin);
      await sql.executeSql("UPDATE users SET role = 'member' WHERE id = $1", [demotedAdmin.caller.userId]);
      expect((await refusal(register(fromDemoted), 'forbidden')).message).toContain('Invitation withdrawn');
      const fromGone = await inviteBy(admin);
      await sql.executeSql('UPDATE team_invitations SET invited_by = NULL WHERE id = $1', [
        fromGone.invitation_id,
      ]);
      expect((await refusal(register(fromGone), 'forbidden')).message).toContain('Invitation withdrawn');
      const { rows } = await sql.executeSql('SELECT id FROM users WHERE email IN ($1, $2)', [
        fromDemoted.email,
        fromGone.email,
      ]);
      expect(rows).toEqual([]);
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

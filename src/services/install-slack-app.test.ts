import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeSlackServer } from '../../test/fakes/fake-slack-server.js';
import { startTestApp, type TestApp } from '../../test/helpers/test-app.js';
import { invitedMember, refusal, signedInUser } from '../../test/helpers/use-case-harness.js';
import type { SlackOAuth } from '../adapters/slack/slack-oauth.js';
import { changeMemberRole } from './change-member-role.js';
import { getConnector } from './get-connector.js';
import { installSlackApp, NOT_AN_INSTALLER, SLACK_WORKSPACE_TAKEN } from './install-slack-app.js';

const CLIENT_ID = '5555555555.6666666666';
const CLIENT_SECRET = 'install-test-slack-secret';

describe('installSlackApp', () => {
  let slack: FakeSlackServer;
  let testApp: TestApp;
  beforeAll(async () => {
    slack = await FakeSlackServer.start();
    slack.registerApp({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
    testApp = await startTestApp({
      env: { SLACK_CLIENT_ID: CLIENT_ID, SLACK_CLIENT_SECRET: CLIENT_SECRET, SLACK_API_URL: slack.url },
    });
  });
  afterAll(async () => {
    await testApp.close();
    await slack.close();
  });

  it('exchanges the code and makes the workspace the team’s Slack connector, its bot token sealed', async () => {
    const { deps } = testApp.runtime;
    const { caller } = await signedInUser(testApp);
    const installation = slack.issueCode('code-1', CLIENT_ID, { teamId: 'T0INSTALL1', teamName: 'Acme' });
    const outcome = await installSlackApp(deps, caller, 'code-1');
    expect(outcome).toEqual({
      status: 'installed',
      connector_id: expect.any(Number),
      slack_team_id: 'T0INSTALL1',
      slack_team_name: 'Acme',
    });
    const connector = await getConnector(deps, caller, 'slack', String(outcome.connector_id));
    expect(connector).toMatchObject({
      slug: 'chatapp',
      name: 'Slack: Acme',
      config: { slack_team_id: 'T0INSTALL1', bot_user_id: installation.botUserId },
    });
    expect(JSON.stringify(connector)).not.toContain(installation.botToken);
    // Installing again (a new code) refreshes the same connector.
    slack.issueCode('code-2', CLIENT_ID, { teamId: 'T0INSTALL1', teamName: 'Acme Corp' });
    const again = await installSlackApp(deps, caller, 'code-2');
    expect(again).toMatchObject({ connector_id: outcome.connector_id, slack_team_name: 'Acme Corp' });
  });

  it('refuses a workspace another team installed, and a code Slack does not know', async () => {
    const { deps } = testApp.runtime;
    const first = await signedInUser(testApp);
    const second = await signedInUser(testApp);
    slack.issueCode('code-3', CLIENT_ID, { teamId: 'T0TAKEN001' });
    await installSlackApp(deps, first.caller, 'code-3');
    slack.issueCode('code-4', CLIENT_ID, { teamId: 'T0TAKEN001' });
    const taken = await refusal(installSlackApp(deps, second.caller, 'code-4'), 'conflict');
    expect(taken.message).toBe(SLACK_WORKSPACE_TAKEN);
    const unknown = await refusal(installSlackApp(deps, second.caller, 'never-issued'), 'bad_gateway');
    expect(unknown.message).toContain('Slack refused the OAuth code');
  });

  it('is unavailable on a service without Slack’s client credentials', async () => {
    const { deps } = testApp.runtime;
    const { caller } = await signedInUser(testApp);
    await refusal(installSlackApp({ ...deps, slackOAuth: undefined }, caller, 'any-code'), 'unavailable');
  });

  it('is for owners and admins: a member’s code is refused (403) before it is exchanged', async () => {
    const { deps } = testApp.runtime;
    const { caller } = await signedInUser(testApp);
    slack.issueCode('code-member', CLIENT_ID, { teamId: 'T0MEMBER01' });
    const refused = await refusal(
      installSlackApp(deps, { ...caller, role: 'member' }, 'code-member'),
      'forbidden',
    );
    expect(refused.message).toContain('Slack');
    // The code was not spent: an admin of the team installs with it.
    await expect(installSlackApp(deps, { ...caller, role: 'admin' }, 'code-member')).resolves.toMatchObject({
      status: 'installed',
      slack_team_id: 'T0MEMBER01',
    });
  });

  it('reads the role again as it saves: an admin demoted while Slack answered installs nothing', async () => {
    const { deps } = testApp.runtime;
    const owner = await signedInUser(testApp);
    const admin = await invitedMember(testApp, owner, 'admin');
    const slackOAuth = deps.slackOAuth ?? expect.fail('Slack is configured');
    // The owner demotes the admin between the first check and the save.
    const demotedMeanwhile: SlackOAuth = {
      async exchangeCode(code) {
        await changeMemberRole(deps, owner.caller, String(admin.caller.userId), 'member');
        return slackOAuth.exchangeCode(code);
      },
    };
    slack.issueCode('code-demoted', CLIENT_ID, { teamId: 'T0DEMOTED1' });
    const refused = await refusal(
      installSlackApp({ ...deps, slackOAuth: demotedMeanwhile }, admin.caller, 'code-demoted'),
      'forbidden',
    );
    expect(refused.message).toBe(NOT_AN_INSTALLER);
    const { rows } = await testApp.runtime.database.sql.executeSql(
      'SELECT id FROM connectors WHERE external_id = $1',
      ['T0DEMOTED1'],
    );
    expect(rows).toEqual([]);
  });
});

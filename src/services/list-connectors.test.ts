import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeSlackServer } from '../../test/fakes/fake-slack-server.js';
import { startTestApp, type TestApp } from '../../test/helpers/test-app.js';
import { signedInUser } from '../../test/helpers/use-case-harness.js';
import { getConnector } from './get-connector.js';
import { getUserContext } from './get-user-context.js';
import { indexDriveFiles } from './index-drive-files.js';
import { installSlackApp } from './install-slack-app.js';
import { listConnectors } from './list-connectors.js';

const CLIENT_ID = '7777777777.8888888888';
const CLIENT_SECRET = 'list-test-slack-secret';

describe('listConnectors', () => {
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

  it('lists the team’s connectors oldest first, each as getConnector shows it', async () => {
    const { deps } = testApp.runtime;
    const { caller } = await signedInUser(testApp);
    expect(await listConnectors(deps, caller)).toEqual({ connectors: [], wiki_base_url_configured: false });
    const installation = slack.issueCode('list-code', CLIENT_ID, { teamId: 'T0LIST0001' });
    const slackConnector = await installSlackApp(deps, caller, 'list-code');
    await indexDriveFiles(
      deps,
      caller,
      {
        files: [
          { id: 'f1', name: 'f1.txt', type: 'file', url: 'https://drive.google.com/f1', serviceId: 'google' },
        ],
        user_context: await getUserContext(deps, caller),
      },
      'ya29.list-token',
    );
    const { connectors } = await listConnectors(deps, caller);
    expect(connectors.map((connector) => connector.slug)).toEqual(['chatapp', 'googledrive']);
    expect(connectors[0]).toEqual(
      await getConnector(deps, caller, 'chatapp', String(slackConnector.connector_id)),
    );
    expect(connectors[1]).toEqual(await getConnector(deps, caller, 'googledrive', String(connectors[1]?.id)));
    const listed = JSON.stringify(connectors);
    expect(listed).not.toContain(installation.botToken);
    expect(listed).not.toContain('ya29.list-token');
  });

  it('lists no other team’s connectors', async () => {
    const { deps } = testApp.runtime;
    const owner = await signedInUser(testApp);
    const stranger = await signedInUser(testApp);
    slack.issueCode('owner-code', CLIENT_ID, { teamId: 'T0LIST0002' });
    await installSlackApp(deps, owner.caller, 'owner-code');
    expect((await listConnectors(deps, owner.caller)).connectors).toHaveLength(1);
    expect(await listConnectors(deps, stranger.caller)).toEqual({
      connectors: [],
      wiki_base_url_configured: false,
    });
  });
});

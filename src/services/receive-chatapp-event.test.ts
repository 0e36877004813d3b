import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeSlackInstallation, FakeSlackServer } from '../../test/fakes/fake-slack-server.js';
import { startTestApp, type TestApp } from '../../test/helpers/test-app.js';
import { refusal, type SignedInUser, signedInUser } from '../../test/helpers/use-case-harness.js';
import { installSlackApp } from './install-slack-app.js';
import { type ChatappEvent, receiveChatappEvent } from './receive-chatapp-event.js';

const CLIENT_ID = '1313131313.1414141414';
const CLIENT_SECRET = 'receive-test-slack-secret';
const WORKSPACE = 'T0RECEIVE1';

let eventCounter = 0;

/** An `event_callback` envelope as Slack delivers it (an `app_mention` unless `event` says otherwise). */
function delivery(event: Partial<ChatappEvent> = {}, fields: Record<string, unknown> = {}) {
  eventCounter += 1;
  const ts = `${1_700_000_000 + eventCounter}.000100`;
  return {
    type: 'event_callback',
    team_id: WORKSPACE,
    event_id: `Ev0RECV${String(eventCounter).padStart(5, '0')}`,
    is_ext_shared_channel: false,
    event: {
      type: 'app_mention',
      user: 'U0ASKER01',
      ts,
      channel: 'C0GENERAL1',
      text: '<@U0BOT> Where is the key?',
      ...event,
    },
    ...fields,
  };
}

describe('receiveChatappEvent', () => {
  // No worker: the answer jobs stay queued, where the test can see them.
  let slack: FakeSlackServer;
  let testApp: TestApp;
  let installation: FakeSlackInstallation;
  let owner: SignedInUser;
  beforeAll(async () => {
    slack = await FakeSlackServer.start();
    slack.registerApp({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
    testApp = await startTestApp({
      env: { SLACK_CLIENT_ID: CLIENT_ID, SLACK_CLIENT_SECRET: CLIENT_SECRET, SLACK_API_URL: slack.url },
    });
    owner = await signedInUser(testApp);
    installation = slack.issueCode('receive-code', CLIENT_ID, { teamId: WORKSPACE });
    await installSlackApp(testApp.runtime.deps, owner.caller, 'receive-code');
  });
  afterAll(async () => {
    await testApp.close();
    await slack.close();
  });

  async function queuedAnswers(eventId: string) {
    const { rows } = await testApp.runtime.database.sql.executeSql(
      `SELECT data FROM pgboss.job WHERE name = 'answer-chatapp-event' AND data->>'eventId' = $1`,
      [eventId],
    );
    return rows.map((row) => (typeof row.data === 'string' ? JSON.parse(row.data) : row.data));
  }

  async function recorded(eventId: string) {
    const { rows } = await testApp.runtime.database.sql.executeSql(
      'SELECT team_id, status FROM chatapp_events WHERE workspace_id = $1 AND event_id = $2',
      [WORKSPACE, eventId],
    );
    return rows;
  }

  it('answers Slack’s URL verification with its challenge', async () => {
    const { deps } = testApp.runtime;
    expect(await receiveChatappEvent(deps, { type: 'url_verification', challenge: 'abc123' })).toEqual({
      kind: 'challenge',
      challenge: 'abc123',
    });
    await refusal(receiveChatappEvent(deps, { type: 'url_verification' }), 'validation');
  });

  it('records a question to the bot for the installing team and queues its answer once', async () => {
    const { deps } = testApp.runtime;
    const mention = delivery({ thread_ts: '1699999999.000001' });
    expect(await receiveChatappEvent(deps, mention)).toEqual({ kind: 'queued' });
    expect(await recorded(mention.event_id)).toEqual([{ team_id: owner.caller.teamId, status: 'queued' }]);
    expect(await queuedAnswers(mention.event_id)).toEqual([
      expect.objectContaining({
        workspaceId: WORKSPACE,
        channel: 'C0GENERAL1',
        ts: mention.event.ts,
        threadTs: '1699999999.000001',
        text: '<@U0BOT> Where is the key?',
        user: 'U0ASKER01',
        externalShared: false,
        // A mention is read by everyone in the channel: answered for the whole team.
        direct: false,
      }),
    ]);
    // Slack's retry of the same delivery is a duplicate: no second answer.
    expect(await receiveChatappEvent(deps, mention)).toEqual({ kind: 'duplicate' });
    expect(await queuedAnswers(mention.event_id)).toHaveLength(1);
    // A direct message is a question too.
    const direct = delivery({ type: 'message', channel_type: 'im', channel: 'D0DIRECT01' });
    expect(await receiveChatappEvent(deps, direct)).toEqual({ kind: 'queued' });
    // Only the asker reads its answer: the job asks Slack who they are.
    expect(await queuedAnswers(direct.event_id)).toEqual([
      expect.objectContaining({ channel: 'D0DIRECT01', user: 'U0ASKER01', direct: true }),
    ]);
  });

  it('ignores what is no question to the bot, recording nothing', async () => {
    const { deps } = testApp.runtime;
    const ignoredOnes = [
      delivery({ type: 'message', channel_type: 'channel' }),
      delivery({ bot_id: 'B0OTHER01' }),
      delivery({ subtype: 'message_changed' }),
      delivery({ edited: { user: 'U0ASKER01', ts: '1' } }),
      delivery({ user: installation.botUserId }),
      delivery({}, { event_id: null }),
    ];
    for (const envelope of ignoredOnes) {
      expect(await receiveChatappEvent(deps, envelope)).toMatchObject({ kind: 'ignored' });
      if (typeof envelope.event_id === 'string') {
        expect(await recorded(envelope.event_id)).toEqual([]);
        expect(await queuedAnswers(envelope.event_id)).toEqual([]);
      }
    }
  });

  it('tells a workspace no team installed apart', async () => {
    const stranger = delivery({}, { team_id: 'T0NOBODY01' });
    expect(await receiveChatappEvent(testApp.runtime.deps, stranger)).toEqual({
      kind: 'unknown_workspace',
      workspaceId: 'T0NOBODY01',
    });
    expect(await queuedAnswers(stranger.event_id)).toEqual([]);
  });
});

// A Slack answer's sources are links: a cited upload without a URL of its own links to its page in
// the web app (`<PUBLIC_URL>/documents/{id}?passage={chunk_id}`), named by its title and file name.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeSlackServer, type PostedSlackMessage } from '../../../../test/fakes/fake-slack-server.js';
import {
  bearer,
  registerUser,
  startTestApp,
  type TestApp,
  uploadDocuments,
  uploadFiles,
} from '../../../../test/helpers/test-app.js';

const SIGNING_SECRET = 'source-links-signing-secret-5d1f0e8a';
const CLIENT_ID = '2222222222.4444444444';
const CLIENT_SECRET = 'fake-slack-client-secret-source-links';
const WORKSPACE = 'T0LINKS001';
const PUBLIC_URL = 'https://knowledge.example.com';

const COMMANDER = [
  '# Commander.js & friends',
  '',
  'Commander parses the zqxcli command line arguments and prints the usage when --help is given.',
].join('\n');

/** A mention of the bot, as Slack delivers it: signed with the signing secret (`v0=` HMAC-SHA256). */
function signedMention(botUserId: string, text: string, eventId: string) {
  const ts = `${Math.floor(Date.now() / 1000)}.000100`;
  const body = JSON.stringify({
    type: 'event_callback',
    team_id: WORKSPACE,
    api_app_id: 'A0KNOWLEDGE',
    event_id: eventId,
    event_time: Math.floor(Date.now() / 1000),
    event: {
      type: 'app_mention',
      user: 'U0ASKER01',
      text: `<@${botUserId}> ${text}`,
      ts,
      channel: 'C0GENERAL1',
      event_ts: ts,
    },
  });
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = createHmac('sha256', SIGNING_SECRET).update(`v0:${timestamp}:${body}`).digest('hex');
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'x-slack-request-timestamp': timestamp,
      'x-slack-signature': `v0=${signature}`,
    },
  };
}

/** The lines under `Sources:` in a posted answer's blocks. */
function sourceLines(message: PostedSlackMessage): string[] {
  const blocks = message.blocks as { text?: { text: string } }[];
  const text = blocks.map((block) => block.text?.text ?? '').join('\n');
  const [, sources = ''] = text.split('Sources:\n');
  return sources.split('\n').filter((line) => line !== '');
}

describe('Slack sources link to the web app', () => {
  let fake: FakeSlackServer;
  let testApp: TestApp;
  let token: string;
  let botUserId: string;

  beforeAll(async () => {
    fake = await FakeSlackServer.start();
    fake.registerApp({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, appId: 'A0KNOWLEDGE' });
    testApp = await startTestApp({
      env: {
        SLACK_CLIENT_ID: CLIENT_ID,
        SLACK_CLIENT_SECRET: CLIENT_SECRET,
        SLACK_API_URL: fake.url,
        SLACK_SIGNING_SECRET: SIGNING_SECRET,
        // A trailing slash, as people write it: links must not get a double one.
        PUBLIC_URL: `${PUBLIC_URL}/`,
      },
      worker: true,
    });
    const installation = fake.issueCode('links-code', CLIENT_ID, { teamId: WORKSPACE, teamName: 'Links' });
    botUserId = installation.botUserId;
    const user = await registerUser(testApp.app, { chatappCode: 'links-code' });
    expect(user.body.chatapp).toMatchObject({ status: 'installed', slack_team_id: WORKSPACE });
    token = user.token;
  });
  afterAll(async () => {
    await testApp?.close();
    await fake?.close();
  });

  /** Asks the bot in a channel and answers the sources of the one reply it posts. */
  async function askInSlack(question: string, eventId: string): Promise<string[]> {
    fake.clearRecords();
    const { body, headers } = signedMention(botUserId, question, eventId);
    const response = await testApp.app.inject({
      method: 'POST',
      url: '/v1/chatapp/answer',
      headers,
      payload: body,
    });
    expect(response.statusCode, response.body).toBe(200);
    await expect.poll(() => fake.messages.length, { timeout: 60_000 }).toBe(1);
    return sourceLines(fake.messages[0] as PostedSlackMessage);
  }

  it("links an upload without a URL to its cited passage on the web app's page, its title escaped", async () => {
    const job = await uploadFiles(testApp.app, token, [
      { fileName: 'commander.md', type: 'text/markdown', content: COMMANDER },
    ]);
    const documentId = job.files[0]?.document_id;
    const page = await testApp.app.inject({ url: `/v1/documents/${documentId}`, headers: bearer(token) });
    expect(page.json().document).toMatchObject({
      title: 'Commander.js & friends',
      file_name: 'commander.md',
    });
    const [passage] = page.json().chunks as { chunk_id: number }[];

    const lines = await askInSlack('How does zqxcli print the usage?', 'Ev0LINKS0001');
    expect(lines).toEqual([
      `<${PUBLIC_URL}/documents/${documentId}?passage=${passage?.chunk_id}|Commander.js &amp; friends (commander.md)>`,
    ]);
  });

  it('keeps linking a source that has a URL of its own to that URL', async () => {
    await uploadDocuments(testApp.app, token, [
      {
        external_id: 'parking',
        title: 'Parking',
        url: 'https://intranet.example/parking',
        text: 'Visitors to the zqxoffice park in the basement garage, level minus two.',
      },
    ]);
    const lines = await askInSlack('Where do visitors to the zqxoffice park?', 'Ev0LINKS0002');
    expect(lines).toEqual(['<https://intranet.example/parking|Parking>']);
  });
});

import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAiServer } from '../../../../test/fakes/fake-openai-server.js';
import {
  type FakeSlackInstallation,
  FakeSlackServer,
  type PostedSlackMessage,
} from '../../../../test/fakes/fake-slack-server.js';
import {
  registerUser,
  startTestApp,
  TEST_ENV,
  type TestApp,
  uploadDocuments,
} from '../../../../test/helpers/test-app.js';
import { createTestDatabase, type TestDatabase } from '../../../../test/helpers/test-database.js';
import { parseConfig } from '../../../config.js';
import type { DatabaseLocation } from '../../../db/client.js';
import { recordChatappEvents } from '../../../db/repositories/chatapp-events.js';
import { createRuntime, type Runtime } from '../../../deps.js';
import { EXTERNAL_CHANNEL_REFUSAL, FAILED_ANSWER_REPLY } from '../../../services/chatapp-reply.js';
import { startWorker } from '../../../worker.js';
import { type App, buildApp } from '../../app.js';

const SIGNING_SECRET = 'chatapp-test-signing-secret-8f742231b10e';
const CLIENT_ID = '1111111111.3333333333';
const CLIENT_SECRET = 'fake-slack-client-secret-chatapp';
const JOB = 'answer-chatapp-event';

const TRAVEL_POLICY = {
  external_id: 'travel-policy',
  title: 'Travel policy',
  url: 'https://wiki.example.com/travel?page=1&lang=en',
  text: [
    'Hotel stays are reimbursed up to 150 euros a night in every city.',
    'Trains are preferred over flights for trips shorter than four hours.',
    'Receipts must be submitted within thirty days of the trip.',
  ].join(' '),
};

/** Signs a body as Slack does: `v0=` HMAC-SHA256 of `v0:<timestamp>:<body>`. */
function slackHeaders(
  body: string,
  options: { secret?: string; timestamp?: number; retryNum?: number } = {},
) {
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  const signature = createHmac('sha256', options.secret ?? SIGNING_SECRET)
    .update(`v0:${timestamp}:${body}`)
    .digest('hex');
  return {
    'content-type': 'application/json',
    'x-slack-request-timestamp': timestamp,
    'x-slack-signature': `v0=${signature}`,
    ...(options.retryNum === undefined
      ? {}
      : { 'x-slack-retry-num': String(options.retryNum), 'x-slack-retry-reason': 'http_timeout' }),
  };
}

async function deliver(
  app: App,
  envelope: object | string,
  options: Parameters<typeof slackHeaders>[1] & { headers?: Record<string, string> } = {},
) {
  const body = typeof envelope === 'string' ? envelope : JSON.stringify(envelope);
  return app.inject({
    method: 'POST',
    url: '/v1/chatapp/answer',
    headers: { ...slackHeaders(body, options), ...options.headers },
    payload: body,
  });
}

let eventCounter = 0;

/** An `event_callback` envelope as Slack delivers it, carrying `event` (an `app_mention` by default). */
function envelope(
  workspace: string,
  event: Record<string, unknown>,
  fields: Record<string, unknown> = {},
): Record<string, unknown> & { event_id: string; event: Record<string, unknown> & { ts: string } } {
  eventCounter += 1;
  const ts = `${1_700_000_000 + eventCounter}.${String(eventCounter).padStart(6, '0')}`;
  return {
    token: 'legacy-verification-token',
    team_id: workspace,
    context_team_id: workspace,
    context_enterprise_id: null,
    api_app_id: 'A0KNOWLEDGE',
    event: {
      type: 'app_mention',
      user: 'U0ASKER01',
      ts,
      client_msg_id: `msg-${eventCounter}`,
      team: workspace,
      channel: 'C0GENERAL1',
      event_ts: ts,
      blocks: [{ type: 'rich_text', block_id: 'b1', elements: [] }],
      ...event,
    } as Record<string, unknown> & { ts: string },
    type: 'event_callback',
    event_id: `Ev0${String(eventCounter).padStart(8, '0')}`,
    // Slack sends an integer; the spec's table says string: both are taken.
    event_time: 1_700_000_000 + eventCounter,
    authorizations: [{ enterprise_id: null, team_id: workspace, user_id: 'U0BOT', is_bot: true }],
    is_ext_shared_channel: false,
    event_context: `4-${Buffer.from(`ctx-${eventCounter}`).toString('base64url')}`,
    ...fields,
  };
}

async function rows(
  runtime: Runtime,
  text: string,
  values: unknown[] = [],
): Promise<Record<string, unknown>[]> {
  return (await runtime.database.sql.executeSql(text, values)).rows;
}

/** The recorded state of one event: its status and reply. */
async function eventRow(runtime: Runtime, workspace: string, eventId: string) {
  const [row] = await rows(
    runtime,
    'SELECT status, reply_ts FROM chatapp_events WHERE workspace_id = $1 AND event_id = $2',
    [workspace, eventId],
  );
  return row as { status: string; reply_ts: string | null } | undefined;
}

async function jobCount(runtime: Runtime): Promise<number> {
  const [row] = await rows(runtime, 'SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1', [JOB]);
  return Number(row?.n);
}

async function waitFor(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Waits until the event is no longer queued and no answer job is waiting or running. */
async function waitUntilSettled(runtime: Runtime, workspace: string, eventId: string): Promise<string> {
  await waitFor(`event ${eventId} to be answered`, async () => {
    const row = await eventRow(runtime, workspace, eventId);
    return row !== undefined && row.status !== 'queued';
  });
  await waitFor('answer jobs to finish', async () => {
    const [row] = await rows(
      runtime,
      "SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1 AND state IN ('created', 'retry', 'active')",
      [JOB],
    );
    return Number(row?.n) === 0;
  });
  return (await eventRow(runtime, workspace, eventId))?.status ?? 'missing';
}

/** The text of every mrkdwn section and context element of a posted message. */
function blockTexts(message: PostedSlackMessage): string[] {
  const blocks = message.blocks as { type: string; text?: { text: string }; elements?: { text: string }[] }[];
  return blocks.flatMap((block) => [
    ...(block.text === undefined ? [] : [block.text.text]),
    ...(block.elements ?? []).map((element) => element.text),
  ]);
}

/** Starts the fake Slack and an app that knows it, with one team that installed the bot. */
async function slackSetup(fake: FakeSlackServer, testApp: TestApp, workspace: string) {
  const code = `code-${workspace}`;
  const installation = fake.issueCode(code, CLIENT_ID, { teamId: workspace, teamName: `Acme ${workspace}` });
  const user = await registerUser(testApp.app, { chatappCode: code });
  expect(user.body.chatapp).toMatchObject({ status: 'installed', slack_team_id: workspace });
  const job = await uploadDocuments(testApp.app, user.token, [TRAVEL_POLICY]);
  expect(job.status).toBe('completed');
  return { installation, user };
}

function slackEnv(fake: FakeSlackServer): Record<string, string> {
  return {
    SLACK_CLIENT_ID: CLIENT_ID,
    SLACK_CLIENT_SECRET: CLIENT_SECRET,
    SLACK_API_URL: fake.url,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
  };
}

describe('POST /v1/chatapp/answer', () => {
  const WORKSPACE = 'T0ACME0001';
  let fake: FakeSlackServer;
  let testApp: TestApp;
  let installation: FakeSlackInstallation;
  let teamId: number;
  let userToken: string;
  let userEmail: string;

  beforeAll(async () => {
    fake = await FakeSlackServer.start();
    fake.registerApp({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, appId: 'A0KNOWLEDGE' });
    testApp = await startTestApp({ env: slackEnv(fake), worker: true });
    const setup = await slackSetup(fake, testApp, WORKSPACE);
    installation = setup.installation;
    teamId = setup.user.teamId;
    userToken = setup.user.token;
    userEmail = (setup.user.body.user as { email: string }).email;
  });
  afterAll(async () => {
    await testApp?.close();
    await fake?.close();
  });
  afterEach(() => fake.clearRecords());

  /** A mention of this workspace's bot. */
  function mention(text: string, event: Record<string, unknown> = {}, fields: Record<string, unknown> = {}) {
    return envelope(WORKSPACE, { text: `<@${installation.botUserId}> ${text}`, ...event }, fields);
  }

  it('answers the URL verification challenge without a bearer token', async () => {
    const response = await deliver(testApp.app, {
      token: 'Jhj5dZrVaK7ZwHHjRyZWjbDl',
      challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P',
      type: 'url_verification',
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P' });
  });

  it('refuses a request not signed with the signing secret: 401, nothing recorded, nothing queued', async () => {
    const jobsBefore = await jobCount(testApp.runtime);
    const event = mention('What is the hotel limit?');
    const body = JSON.stringify(event);
    const attempts = [
      await deliver(testApp.app, event, { secret: 'another-apps-secret' }),
      // A body changed after signing.
      await testApp.app.inject({
        method: 'POST',
        url: '/v1/chatapp/answer',
        headers: slackHeaders(body),
        payload: body.replace('hotel', 'hostel'),
      }),
      await testApp.app.inject({
        method: 'POST',
        url: '/v1/chatapp/answer',
        headers: { 'content-type': 'application/json' },
        payload: body,
      }),
      // Not even JSON, and unsigned: the signature is refused before the body is read as JSON.
      await testApp.app.inject({
        method: 'POST',
        url: '/v1/chatapp/answer',
        headers: { 'content-type': 'application/json', 'x-slack-signature': `v0=${'0'.repeat(64)}` },
        payload: '{not json',
      }),
      await testApp.app.inject({ method: 'POST', url: '/v1/chatapp/answer' }),
    ];
    for (const response of attempts) {
      expect(response.statusCode, response.body).toBe(401);
      expect((response.json() as { detail: string }).detail).toMatch(/Slack signature/);
    }
    expect(await eventRow(testApp.runtime, WORKSPACE, event.event_id)).toBeUndefined();
    expect(await jobCount(testApp.runtime)).toBe(jobsBefore);
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(fake.callsTo('chat.postMessage')).toHaveLength(0);
    // The signature header never reaches the log.
    expect(testApp.logLines.join('\n')).not.toContain(slackHeaders(body)['x-slack-signature']);
  });

  it('refuses a correctly signed request whose timestamp is more than five minutes off', async () => {
    const now = Math.floor(Date.now() / 1000);
    const event = mention('What is the hotel limit?');
    for (const timestamp of [now - 6 * 60, now + 6 * 60]) {
      const response = await deliver(testApp.app, event, { timestamp });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({
        detail: 'Invalid Slack signature: the request timestamp is more than 5 minutes from now',
      });
    }
    expect(await eventRow(testApp.runtime, WORKSPACE, event.event_id)).toBeUndefined();
    // Within the window it is taken.
    expect((await deliver(testApp.app, event, { timestamp: now - 4 * 60 })).statusCode).toBe(200);
    await waitUntilSettled(testApp.runtime, WORKSPACE, event.event_id);
  });

  it('answers one question once, in its thread, however often Slack delivers it', async () => {
    const event = mention('where do hotel stays get reimbursed?', { thread_ts: '1699999999.000100' });
    const first = await deliver(testApp.app, event);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ ok: true, status: 'queued' });
    // Slack's retries (the same event_id), two of them racing each other.
    const retries = await Promise.all([1, 2, 3].map((retryNum) => deliver(testApp.app, event, { retryNum })));
    for (const retry of retries) expect(retry.json()).toEqual({ ok: true, status: 'duplicate' });

    expect(await waitUntilSettled(testApp.runtime, WORKSPACE, event.event_id)).toBe('answered');
    expect(fake.messages).toHaveLength(1);
    const [message] = fake.messages as [PostedSlackMessage];
    expect(message.channel).toBe('C0GENERAL1');
    expect(message.threadTs).toBe('1699999999.000100');
    expect(message.token).toBe(installation.botToken);
    expect((await eventRow(testApp.runtime, WORKSPACE, event.event_id))?.reply_ts).toBe(message.ts);
    // A fourth, late re-delivery after the answer changes nothing.
    expect((await deliver(testApp.app, event, { retryNum: 4 })).json()).toEqual({
      ok: true,
      status: 'duplicate',
    });
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(fake.messages).toHaveLength(1);
  });

  it('takes a burst of questions, each delivered twice at once, and answers each once', async () => {
    const events = Array.from({ length: 12 }, (_unused, index) =>
      mention(`question ${index}: how much are hotel stays reimbursed?`, { channel: `C0BURST${index}` }),
    );
    const responses = await Promise.all(
      events.flatMap((event) => [deliver(testApp.app, event), deliver(testApp.app, event, { retryNum: 1 })]),
    );
    const statuses = responses.map((response) => (response.json() as { status: string }).status);
    for (let index = 0; index < events.length; index++) {
      expect([statuses[2 * index], statuses[2 * index + 1]].sort()).toEqual(['duplicate', 'queued']);
    }
    for (const event of events) await waitUntilSettled(testApp.runtime, WORKSPACE, event.event_id);
    expect(fake.messages.map((message) => message.channel).sort()).toEqual(
      events.map((event) => String(event.event.channel)).sort(),
    );
  });

  it('records an event once, whether it repeats within one batch or across batches', async () => {
    const a = { workspaceId: WORKSPACE, eventId: 'EvRepeat0001', teamId };
    const b = { workspaceId: WORKSPACE, eventId: 'EvRepeat0002', teamId };
    expect(await recordChatappEvents(testApp.runtime.database.sql, [a, a, b])).toEqual([true, false, true]);
    expect(await recordChatappEvents(testApp.runtime.database.sql, [b, a])).toEqual([false, false]);
  });

  it("answers from the team's indexed document and cites it as a <url|title> line", async () => {
    const event = mention('How much are hotel stays reimbursed a night?');
    expect((await deliver(testApp.app, event)).statusCode).toBe(200);
    expect(await waitUntilSettled(testApp.runtime, WORKSPACE, event.event_id)).toBe('answered');
    const [message] = fake.messages as [PostedSlackMessage];
    // A question outside a thread starts one under itself.
    expect(message.threadTs).toBe(event.event.ts);
    const [answer, ...rest] = blockTexts(message);
    expect(answer).toContain('150 euros a night');
    const sources = rest.join('\n');
    const [heading, ...lines] = sources.split('\n');
    expect(heading).toBe('Sources:');
    // One bare `<url|title>` line per source; `&` is escaped in links as Slack's mrkdwn wants it.
    expect(lines).toContain('<https://wiki.example.com/travel?page=1&amp;lang=en|Travel policy>');
    for (const line of lines) expect(line).toMatch(/^<[^|>]+\|[^>]+>$/);
    expect(message.text).toContain('150 euros a night');
  });

  it("escapes a document's mentions and links in the notification text as in the blocks", async () => {
    await uploadDocuments(testApp.app, userToken, [
      {
        external_id: 'outage-runbook',
        title: 'Outage runbook',
        text: 'During an outage the zqxpager rota is: alert <!channel>, page <@U0ADMIN> and sign in at <https://evil.example/login|SSO portal> first.',
      },
    ]);
    const event = mention('What does the zqxpager rota say during an outage?');
    expect((await deliver(testApp.app, event)).statusCode).toBe(200);
    expect(await waitUntilSettled(testApp.runtime, WORKSPACE, event.event_id)).toBe('answered');
    const [message] = fake.messages as [PostedSlackMessage];
    expect(message.text).toContain('&lt;!channel&gt;');
    for (const text of [message.text ?? '', ...blockTexts(message)]) {
      expect(text).not.toContain('<!channel>');
      expect(text).not.toContain('<@U0ADMIN>');
      expect(text).not.toContain('<https://evil.example');
    }
  });

  it('answers a direct message to the bot, which needs no mention', async () => {
    const event = envelope(WORKSPACE, {
      type: 'message',
      channel: 'D0DIRECT01',
      channel_type: 'im',
      text: 'Are trains preferred over flights?',
    });
    expect((await deliver(testApp.app, event)).json()).toEqual({ ok: true, status: 'queued' });
    expect(await waitUntilSettled(testApp.runtime, WORKSPACE, event.event_id)).toBe('answered');
    const [message] = fake.messages as [PostedSlackMessage];
    expect(message.channel).toBe('D0DIRECT01');
    expect(blockTexts(message).join('\n')).toContain('Trains are preferred over flights');
  });

  it("answers a member's direct message with their access, and a channel or anyone else with the team's", async () => {
    await uploadDocuments(testApp.app, userToken, [
      {
        external_id: 'salary-bands',
        title: 'Salary bands',
        url: 'https://hr.example.com/salary-bands',
        text: 'The zqxband for senior engineers tops out at 91,000 euros a year.',
        visibility: 'private',
      },
    ]);
    // The uploader's Slack account (Slack keeps the address as typed), a stranger to the team
    // (registered with a team of their own), and a Slack user without an e-mail.
    fake.addUser({ id: 'U0MEMBER01', email: userEmail.toUpperCase() });
    const outsider = await registerUser(testApp.app);
    fake.addUser({ id: 'U0OUTSIDE1', email: (outsider.body.user as { email: string }).email });
    fake.addUser({ id: 'U0NOEMAIL1' });
    const question = 'What does the zqxband for senior engineers top out at?';
    const direct = (user: string) =>
      envelope(WORKSPACE, {
        type: 'message',
        channel: `D0${user.slice(2)}`,
        channel_type: 'im',
        user,
        text: question,
      });
    const asked = async (event: ReturnType<typeof envelope>) => {
      expect((await deliver(testApp.app, event)).json()).toEqual({ ok: true, status: 'queued' });
      expect(await waitUntilSettled(testApp.runtime, WORKSPACE, event.event_id)).toBe('answered');
      const message = fake.messages.find((posted) => posted.threadTs === event.event.ts);
      if (message === undefined) throw new Error(`no reply to ${event.event_id}`);
      return [message.text ?? '', ...blockTexts(message)].join('\n');
    };

    const own = await asked(direct('U0MEMBER01'));
    expect(own).toContain('91,000 euros');
    expect(own).toContain('<https://hr.example.com/salary-bands|Salary bands>');
    expect(fake.callsTo('users.info').map((call) => call.body.user)).toEqual(['U0MEMBER01']);

    // In a channel everyone present reads the reply: the member's own upload stays out of it.
    const inChannel = await asked(mention(question, { user: 'U0MEMBER01' }));
    const others = [
      inChannel,
      await asked(direct('U0OUTSIDE1')),
      await asked(direct('U0NOEMAIL1')),
      await asked(direct('U0STRANGE1')),
    ];
    for (const reply of others) {
      expect(reply).not.toContain('91,000');
      expect(reply).not.toContain('salary-bands');
      expect(reply).not.toContain('Salary bands');
    }
    // Only direct messages ask Slack who asked.
    expect(fake.callsTo('users.info').map((call) => call.body.user)).toEqual([
      'U0MEMBER01',
      'U0OUTSIDE1',
      'U0NOEMAIL1',
      'U0STRANGE1',
    ]);
  });

  it("ignores bots, the bot's own messages, edits, deletions and other events", async () => {
    const direct = { type: 'message', channel: 'D0DIRECT01', channel_type: 'im' };
    const ignored = [
      mention('What is the hotel limit?', { bot_id: 'B0OTHERBOT', subtype: 'bot_message' }),
      mention('What is the hotel limit?', { bot_id: 'B0OTHERBOT' }),
      envelope(WORKSPACE, { ...direct, text: 'Hotel stays are reimbursed…', user: installation.botUserId }),
      envelope(WORKSPACE, {
        ...direct,
        subtype: 'message_changed',
        message: { type: 'message', user: 'U0ASKER01', text: 'What is the hotel limit, again?' },
      }),
      envelope(WORKSPACE, { ...direct, subtype: 'message_deleted', deleted_ts: '1700000000.000001' }),
      envelope(WORKSPACE, { ...direct, subtype: 'channel_join', text: 'joined' }),
      // A plain channel message: the bot answers there only when mentioned.
      envelope(WORKSPACE, { type: 'message', channel_type: 'channel', text: 'What is the hotel limit?' }),
      envelope(WORKSPACE, { type: 'reaction_added', user: 'U0ASKER01', reaction: 'thumbsup', item: {} }),
      // Other event types carry objects where messages carry ids; they pass validation all the same.
      envelope(WORKSPACE, { type: 'team_join', user: { id: 'U0NEW', name: 'new' } }),
      envelope(WORKSPACE, { type: 'channel_created', channel: { id: 'C0NEW', name: 'new' } }),
      { type: 'app_rate_limited', token: 't', team_id: WORKSPACE, minute_rate_limited: 1518467820 },
    ];
    for (const event of ignored) {
      const response = await deliver(testApp.app, event);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toEqual({ ok: true, status: 'ignored' });
    }
    const [row] = await rows(
      testApp.runtime,
      'SELECT count(*)::int AS n FROM chatapp_events WHERE event_id = ANY($1)',
      [ignored.map((event) => (event as { event_id?: string }).event_id ?? '')],
    );
    expect(Number(row?.n)).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(fake.callsTo('chat.postMessage')).toHaveLength(0);
  });

  it('declines in a channel shared with another organisation, revealing nothing', async () => {
    const event = mention(
      'How much are hotel stays reimbursed a night?',
      {},
      { is_ext_shared_channel: true },
    );
    expect((await deliver(testApp.app, event)).statusCode).toBe(200);
    expect(await waitUntilSettled(testApp.runtime, WORKSPACE, event.event_id)).toBe('refused');
    expect(fake.messages).toHaveLength(1);
    const [message] = fake.messages as [PostedSlackMessage];
    expect(message.threadTs).toBe(event.event.ts);
    expect(message.text).toBe(EXTERNAL_CHANNEL_REFUSAL);
    const everything = JSON.stringify(message);
    expect(everything).not.toContain('150 euros');
    expect(everything).not.toContain('wiki.example.com');
  });

  it('acknowledges an event of a workspace no team installed the bot into, and logs it without answering', async () => {
    const event = envelope('T0STRANGER', { text: '<@U0SOMEBOT> What is the hotel limit?' });
    const response = await deliver(testApp.app, event);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ ok: true, status: 'unknown_workspace' });
    const logged = testApp.logLines.find((line) => line.includes('T0STRANGER'));
    expect(logged).toBeDefined();
    expect(JSON.parse(logged ?? '{}')).toMatchObject({ level: 40, workspace: 'T0STRANGER' });
    expect(logged).not.toContain('legacy-verification-token');
    expect(await eventRow(testApp.runtime, 'T0STRANGER', event.event_id)).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(fake.callsTo('chat.postMessage')).toHaveLength(0);
  });

  it('retries a rate-limited reply after Retry-After and still posts it once', async () => {
    fake.rateLimitNext('chat.postMessage', 1);
    const event = mention('How much are hotel stays reimbursed a night?');
    expect((await deliver(testApp.app, event)).statusCode).toBe(200);
    expect(await waitUntilSettled(testApp.runtime, WORKSPACE, event.event_id)).toBe('answered');
    expect(fake.callsTo('chat.postMessage')).toHaveLength(2);
    expect(fake.messages).toHaveLength(1);
  });

  it('gives up at once when Slack says the channel is gone', async () => {
    fake.failNext('chat.postMessage', 'channel_not_found', 5);
    const event = mention('How much are hotel stays reimbursed a night?');
    expect((await deliver(testApp.app, event)).statusCode).toBe(200);
    expect(await waitUntilSettled(testApp.runtime, WORKSPACE, event.event_id)).toBe('failed');
    expect(fake.callsTo('chat.postMessage')).toHaveLength(1);
  });

  it('validates the envelope: 422 for a signed body that is not JSON or lacks its type', async () => {
    const notJson = await deliver(testApp.app, '{"type": "event_callback",');
    expect(notJson.statusCode).toBe(422);
    expect(notJson.json()).toMatchObject({ detail: [{ type: 'json_invalid', loc: ['body', 26] }] });
    const untyped = await deliver(testApp.app, { event_time: '1700000000', is_ext_shared_channel: 'no' });
    expect(untyped.statusCode).toBe(422);
    expect(untyped.json()).toMatchObject({
      detail: [
        { type: 'missing', loc: ['body', 'type'] },
        { type: 'bool_parsing', loc: ['body', 'is_ext_shared_channel'] },
      ],
    });
    const noChallenge = await deliver(testApp.app, { type: 'url_verification' });
    expect(noChallenge.statusCode).toBe(422);
    expect(noChallenge.json()).toMatchObject({ detail: [{ type: 'missing', loc: ['body', 'challenge'] }] });
  });
});

describe('POST /v1/chatapp/answer with an LLM answerer', () => {
  const WORKSPACE = 'T0LLM00001';
  let fake: FakeSlackServer;
  let openai: FakeOpenAiServer;
  let testApp: TestApp;
  let installation: FakeSlackInstallation;

  beforeAll(async () => {
    fake = await FakeSlackServer.start();
    fake.registerApp({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
    openai = await FakeOpenAiServer.start();
    testApp = await startTestApp({
      env: {
        ...slackEnv(fake),
        LLM_MODEL: 'fake-chat-model',
        LLM_BASE_URL: openai.baseUrl,
        LLM_API_KEY: 'sk-test',
      },
      worker: true,
    });
    ({ installation } = await slackSetup(fake, testApp, WORKSPACE));
  });
  afterAll(async () => {
    await testApp?.close();
    await openai?.close();
    await fake?.close();
  });

  it("asks without the bot's mention and posts the model's Markdown as Slack mrkdwn", async () => {
    openai.chatScript = {
      reply:
        '**Hotels**: up to 150 euros a night [1]. See the [policy](https://wiki.example.com/travel) & ask <@U0ALL>.',
    };
    const event = envelope(WORKSPACE, {
      text: `<@${installation.botUserId}> What is the hotel limit &amp; the &lt;rule&gt;?`,
    });
    expect((await deliver(testApp.app, event)).statusCode).toBe(200);
    expect(await waitUntilSettled(testApp.runtime, WORKSPACE, event.event_id)).toBe('answered');

    const prompt = openai.chatRequests.map((request) => JSON.stringify(request.messages)).join('\n');
    expect(prompt).toContain('What is the hotel limit & the <rule>?');
    expect(prompt).not.toContain(installation.botUserId);
    const [message] = fake.messages as [PostedSlackMessage];
    const [answer, sources] = blockTexts(message);
    expect(answer).toBe(
      '*Hotels*: up to 150 euros a night [1]. See the <https://wiki.example.com/travel|policy> &amp; ask &lt;@U0ALL&gt;.',
    );
    expect(sources).toBe('Sources:\n<https://wiki.example.com/travel?page=1&amp;lang=en|Travel policy>');
  });

  it('tells the asker in the thread when the model refuses, instead of leaving them waiting', async () => {
    fake.clearRecords();
    openai.failNext({ status: 401, message: 'Incorrect API key provided' });
    const event = envelope(WORKSPACE, { text: `<@${installation.botUserId}> What is the hotel limit?` });
    expect((await deliver(testApp.app, event)).statusCode).toBe(200);
    expect(await waitUntilSettled(testApp.runtime, WORKSPACE, event.event_id)).toBe('failed');
    expect(fake.messages).toHaveLength(1);
    expect(fake.messages[0]).toMatchObject({ threadTs: event.event.ts, text: FAILED_ANSWER_REPLY });
  });
});

describe('POST /v1/chatapp/answer across a restart', () => {
  const WORKSPACE = 'T0RESTART1';
  let fake: FakeSlackServer;
  let dataDir: string;
  let database: TestDatabase;
  let location: DatabaseLocation;
  const env = () => ({ ...TEST_ENV, ...slackEnv(fake), LOG_LEVEL: 'silent' });

  beforeAll(async () => {
    fake = await FakeSlackServer.start();
    fake.registerApp({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
    dataDir = mkdtempSync(path.join(tmpdir(), 'chatapp-restart-'));
    database = await createTestDatabase();
    location = database.location.kind === 'postgres' ? database.location : { kind: 'embedded', dataDir };
  });
  afterAll(async () => {
    await fake?.close();
    await database?.drop();
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
  });

  /** The real app on a database that outlives it, as a process restart would find it. */
  async function start(worker: boolean) {
    const config = parseConfig(env());
    const runtime = await createRuntime(config, {
      database: location,
      queueTimings: { pollingIntervalSeconds: 0.5, maintenanceIntervalSeconds: 1 },
    });
    const app = await buildApp({ deps: runtime.deps, ping: runtime.database.ping, logger: false });
    await app.ready();
    const stopWorker = worker ? await startWorker(runtime, config, pino({ level: 'silent' })) : () => {};
    return {
      app,
      runtime,
      close: async () => {
        stopWorker();
        await app.close();
        await runtime.close();
      },
    };
  }

  it('answers an event recorded before a restart once, and not again when Slack re-delivers it', async () => {
    // Before: the API takes the event (its answer queued), and a retry; no worker runs.
    const before = await start(false);
    const installation = fake.issueCode('code-restart', CLIENT_ID, { teamId: WORKSPACE });
    await registerUser(before.app, { chatappCode: 'code-restart' });
    const event = envelope(WORKSPACE, { text: `<@${installation.botUserId}> What is the hotel limit?` });
    expect((await deliver(before.app, event)).json()).toEqual({ ok: true, status: 'queued' });
    expect((await deliver(before.app, event, { retryNum: 1 })).json()).toEqual({
      ok: true,
      status: 'duplicate',
    });
    await before.close();
    expect(fake.messages).toHaveLength(0);

    // After the restart: a re-delivery is a duplicate, and the queued answer is posted once.
    const after = await start(true);
    try {
      expect((await deliver(after.app, event, { retryNum: 2 })).json()).toEqual({
        ok: true,
        status: 'duplicate',
      });
      expect(await waitUntilSettled(after.runtime, WORKSPACE, event.event_id)).toBe('answered');
      expect(fake.messages).toHaveLength(1);
      expect(fake.messages[0]?.threadTs).toBe(event.event.ts);
    } finally {
      await after.close();
    }

    // And once more: answered is answered.
    const again = await start(true);
    try {
      expect((await deliver(again.app, event, { retryNum: 3 })).json()).toEqual({
        ok: true,
        status: 'duplicate',
      });
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(fake.messages).toHaveLength(1);
    } finally {
      await again.close();
    }
  });
});

describe('POST /v1/chatapp/answer without SLACK_SIGNING_SECRET', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp();
  });
  afterAll(async () => {
    await testApp?.close();
  });

  it('refuses every delivery with 503, saying what is missing', async () => {
    const response = await deliver(testApp.app, { type: 'url_verification', challenge: 'abc' });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toEqual({
      detail: 'Slack events are not accepted: SLACK_SIGNING_SECRET is not configured on this server',
    });
  });
});

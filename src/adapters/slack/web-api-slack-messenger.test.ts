import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeSlackServer } from '../../../test/fakes/fake-slack-server.js';
import { toJobError } from '../../jobs/retry-policy.js';
import { SlackApiError } from './slack-messenger.js';
import { WebApiSlackMessenger } from './web-api-slack-messenger.js';

const CLIENT_ID = '1111111111.4444444444';

async function failureOf(promise: Promise<unknown>): Promise<SlackApiError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(SlackApiError);
  return error as SlackApiError;
}

describe('WebApiSlackMessenger against a fake Slack Web API', () => {
  let fake: FakeSlackServer;
  let messenger: WebApiSlackMessenger;
  let botToken: string;
  const message = { channel: 'C0GENERAL1', threadTs: '1700000000.000100', text: 'Hello' };

  beforeAll(async () => {
    fake = await FakeSlackServer.start();
    fake.registerApp({ clientId: CLIENT_ID, clientSecret: 'secret' });
    botToken = fake.issueCode('code', CLIENT_ID).botToken;
    // Installing makes the token known to the fake, as Slack knows it after the exchange.
    await fetch(`${fake.url}oauth.v2.access`, {
      method: 'POST',
      body: new URLSearchParams({ client_id: CLIENT_ID, client_secret: 'secret', code: 'code' }),
    });
    messenger = new WebApiSlackMessenger(fake.url, { timeoutMs: 2000 });
  });
  afterAll(async () => {
    await fake?.close();
  });

  it('posts blocks in the thread with the bot token, without link previews', async () => {
    const blocks = [{ type: 'section' as const, text: { type: 'mrkdwn' as const, text: '*Hi*' } }];
    const { ts } = await messenger.postMessage(botToken, { ...message, blocks });
    const [posted] = fake.messages.slice(-1);
    expect(posted).toMatchObject({ ts, channel: 'C0GENERAL1', threadTs: '1700000000.000100', text: 'Hello' });
    expect(posted?.blocks).toEqual(blocks);
    expect(posted?.token).toBe(botToken);
    expect(fake.callsTo('chat.postMessage').at(-1)?.body).toMatchObject({
      unfurl_links: 'false',
      unfurl_media: 'false',
    });
  });

  it('makes a 429 retryable after its Retry-After, without retrying by itself', async () => {
    fake.rateLimitNext('chat.postMessage', 7);
    const before = fake.callsTo('chat.postMessage').length;
    const error = await failureOf(messenger.postMessage(botToken, message));
    expect(fake.callsTo('chat.postMessage').length).toBe(before + 1);
    expect(error).toMatchObject({ failure: 'rate_limited', retryable: true, retryAfterSeconds: 7 });
    expect(toJobError(error)).toMatchObject({
      reason: 'rate_limited',
      retryable: true,
      retryAfterSeconds: 7,
    });
  });

  it('makes a 5xx and an unreachable server retryable', async () => {
    fake.failNextWithStatus('chat.postMessage', 503);
    expect(toJobError(await failureOf(messenger.postMessage(botToken, message)))).toMatchObject({
      reason: 'upstream_unavailable',
      retryable: true,
    });
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const nowhere = new WebApiSlackMessenger(`http://127.0.0.1:${port}/api/`);
    expect(toJobError(await failureOf(nowhere.postMessage(botToken, message)))).toMatchObject({
      retryable: true,
    });
  });

  it("makes Slack's refusals permanent, naming Slack's error", async () => {
    for (const [slackError, reason] of [
      ['channel_not_found', 'not_found'],
      ['not_in_channel', 'forbidden'],
      ['invalid_blocks', 'bad_request'],
    ] as const) {
      fake.failNext('chat.postMessage', slackError);
      const error = await failureOf(messenger.postMessage(botToken, message));
      expect(error.slackError).toBe(slackError);
      expect(toJobError(error)).toMatchObject({ reason, retryable: false });
    }
    const revoked = await failureOf(messenger.postMessage('xoxb-not-a-token', message));
    expect(revoked).toMatchObject({ slackError: 'invalid_auth', retryable: false });
    expect(toJobError(revoked).reason).toBe('unauthorized');
  });

  describe('userEmail (users.info)', () => {
    it("answers the user's confirmed e-mail, lower-cased, asking users.info with the bot token", async () => {
      fake.addUser({ id: 'U0MEMBER01', email: 'Ann.Lee@Example.COM' });
      expect(await messenger.userEmail(botToken, 'U0MEMBER01')).toBe('ann.lee@example.com');
      const call = fake.callsTo('users.info').at(-1);
      expect(call?.body).toMatchObject({ user: 'U0MEMBER01' });
      expect(call?.headers.authorization).toBe(`Bearer ${botToken}`);
    });

    it('answers undefined when Slack tells no e-mail: none, unconfirmed, unknown user, missing scope', async () => {
      fake.addUser({ id: 'U0NOEMAIL1', isBot: true });
      fake.addUser({ id: 'U0UNCONFIRM', email: 'someone@example.com', emailConfirmed: false });
      expect(await messenger.userEmail(botToken, 'U0NOEMAIL1')).toBeUndefined();
      expect(await messenger.userEmail(botToken, 'U0UNCONFIRM')).toBeUndefined();
      expect(await messenger.userEmail(botToken, 'U0NOBODY01')).toBeUndefined();
      for (const slackError of ['user_not_visible', 'missing_scope']) {
        fake.failNext('users.info', slackError);
        expect(await messenger.userEmail(botToken, 'U0MEMBER01')).toBeUndefined();
      }
    });

    it('leaves out the e-mail of an installation without users:read.email, and refuses one without users:read', async () => {
      const scoped = async (code: string, scope: string) => {
        const token = fake.issueCode(code, CLIENT_ID, { scope }).botToken;
        await fetch(`${fake.url}oauth.v2.access`, {
          method: 'POST',
          body: new URLSearchParams({ client_id: CLIENT_ID, client_secret: 'secret', code }),
        });
        return token;
      };
      fake.addUser({ id: 'U0SCOPED01', email: 'scoped@example.com' });
      const withoutEmail = await scoped('code-no-email', 'app_mentions:read,chat:write,users:read');
      expect(await messenger.userEmail(withoutEmail, 'U0SCOPED01')).toBeUndefined();
      const withoutUsers = await scoped('code-no-users', 'app_mentions:read,chat:write');
      expect(await messenger.userEmail(withoutUsers, 'U0SCOPED01')).toBeUndefined();
    });

    it('throws what another attempt may cure, and a token Slack no longer takes', async () => {
      fake.rateLimitNext('users.info', 5);
      expect(await failureOf(messenger.userEmail(botToken, 'U0MEMBER01'))).toMatchObject({
        failure: 'rate_limited',
        retryable: true,
        retryAfterSeconds: 5,
      });
      fake.failNextWithStatus('users.info', 503);
      expect(await failureOf(messenger.userEmail(botToken, 'U0MEMBER01'))).toMatchObject({ retryable: true });
      fake.failNext('users.info', 'internal_error');
      expect(await failureOf(messenger.userEmail(botToken, 'U0MEMBER01'))).toMatchObject({ retryable: true });
      const revoked = await failureOf(messenger.userEmail('xoxb-not-a-token', 'U0MEMBER01'));
      expect(revoked).toMatchObject({ slackError: 'invalid_auth', retryable: false });
    });
  });

  describe('threadMessages (conversations.replies)', () => {
    let threadCounter = 0;
    /** A thread in a fresh channel: a person's parent message, then `replies` by the same person. */
    function thread(replies: number, channelId?: string) {
      threadCounter += 1;
      const channel = channelId ?? `C0THREAD${String(threadCounter).padStart(2, '0')}`;
      const parent = fake.addThreadMessage({ channel, user: 'U0ASKER01', text: 'Parent' });
      const later = Array.from(
        { length: replies },
        (_, index) =>
          fake.addThreadMessage({
            channel,
            threadTs: parent.ts,
            user: 'U0ASKER01',
            text: `Reply ${index + 1}`,
          }).ts,
      );
      return { channel, threadTs: parent.ts, replies: later };
    }

    it("answers the thread's messages before the question, oldest first, the bot's posts among them", async () => {
      const channel = 'C0THREADBOT';
      const parent = fake.addThreadMessage({
        channel,
        user: 'U0ASKER01',
        text: '<@U0BOT> How do I descale it?',
      });
      const answer = await messenger.postMessage(botToken, {
        channel,
        threadTs: parent.ts,
        text: 'Use a tablet.',
      });
      const question = fake.addThreadMessage({
        channel,
        threadTs: parent.ts,
        user: 'U0ASKER01',
        text: 'How often?',
      });
      fake.addThreadMessage({ channel, threadTs: parent.ts, user: 'U0OTHER01', text: 'Later' });
      const messages = await messenger.threadMessages(botToken, channel, parent.ts, {
        before: question.ts,
        limit: 10,
      });
      expect(messages).toEqual([
        { ts: parent.ts, user: 'U0ASKER01', text: '<@U0BOT> How do I descale it?' },
        {
          ts: answer.ts,
          user: expect.stringMatching(/^U0/),
          botId: expect.stringMatching(/^B0/),
          text: 'Use a tablet.',
        },
      ]);
      const call = fake.callsTo('conversations.replies').at(-1);
      expect(call?.body).toMatchObject({ channel, ts: parent.ts, latest: question.ts, inclusive: 'false' });
      expect(call?.headers.authorization).toBe(`Bearer ${botToken}`);
    });

    it('keeps the last `limit` of them, paging through a long thread', async () => {
      const { channel, threadTs, replies } = thread(450);
      const before = fake.callsTo('conversations.replies').length;
      const messages = await messenger.threadMessages(botToken, channel, threadTs, {
        before: replies[429] as string,
        limit: 3,
      });
      expect(messages.map((message) => message.text)).toEqual(['Reply 427', 'Reply 428', 'Reply 429']);
      // 430 messages before the question (the parent and 429 replies), 200 a page.
      expect(fake.callsTo('conversations.replies').length - before).toBe(3);
      expect(fake.callsTo('conversations.replies').at(-1)?.body.cursor).toEqual(expect.any(String));
    });

    it('answers none for a thread longer than it pages through, rather than its start', async () => {
      const { channel, threadTs, replies } = thread(1100);
      const last = replies.at(-1) as string;
      expect(await messenger.threadMessages(botToken, channel, threadTs, { before: last, limit: 3 })).toEqual(
        [],
      );
    });

    it('answers none when Slack will not show the thread: no history scope, not in the channel, unknown', async () => {
      const { channel, threadTs, replies } = thread(2);
      const question = { before: replies[1] as string, limit: 10 };
      const token = fake.issueCode('code-no-history', CLIENT_ID, {
        scope: 'app_mentions:read,chat:write,im:history,users:read',
      }).botToken;
      await fetch(`${fake.url}oauth.v2.access`, {
        method: 'POST',
        body: new URLSearchParams({ client_id: CLIENT_ID, client_secret: 'secret', code: 'code-no-history' }),
      });
      expect(await messenger.threadMessages(token, channel, threadTs, question)).toEqual([]);
      expect(fake.callsTo('conversations.replies').length).toBeGreaterThan(0);
      // The scope of direct messages is the one this token has.
      const direct = thread(1, 'D0DIRECT01');
      expect(
        await messenger.threadMessages(token, direct.channel, direct.threadTs, {
          before: direct.replies[0] as string,
          limit: 10,
        }),
      ).toEqual([{ ts: direct.threadTs, user: 'U0ASKER01', text: 'Parent' }]);
      expect(await messenger.threadMessages(botToken, channel, '1600000000.000001', question)).toEqual([]);
      for (const slackError of ['not_in_channel', 'channel_not_found', 'missing_scope']) {
        fake.failNext('conversations.replies', slackError);
        expect(await messenger.threadMessages(botToken, channel, threadTs, question)).toEqual([]);
      }
      expect(await messenger.threadMessages(botToken, channel, threadTs, question)).toHaveLength(2);
    });

    it('throws what another attempt may cure, and a token Slack no longer takes', async () => {
      const { channel, threadTs, replies } = thread(1);
      const question = { before: replies[0] as string, limit: 10 };
      fake.rateLimitNext('conversations.replies', 30);
      expect(await failureOf(messenger.threadMessages(botToken, channel, threadTs, question))).toMatchObject({
        failure: 'rate_limited',
        retryable: true,
        retryAfterSeconds: 30,
      });
      fake.failNextWithStatus('conversations.replies', 503);
      expect(await failureOf(messenger.threadMessages(botToken, channel, threadTs, question))).toMatchObject({
        retryable: true,
      });
      const revoked = await failureOf(
        messenger.threadMessages('xoxb-not-a-token', channel, threadTs, question),
      );
      expect(revoked).toMatchObject({ slackError: 'invalid_auth', retryable: false });
    });
  });
});

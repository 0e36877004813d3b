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
});

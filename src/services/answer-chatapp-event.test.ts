import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeSlackInstallation, FakeSlackServer } from '../../test/fakes/fake-slack-server.js';
import { startTestApp, type TestApp } from '../../test/helpers/test-app.js';
import {
  indexTexts,
  rejectionOf,
  type SignedInUser,
  signedInUser,
} from '../../test/helpers/use-case-harness.js';
import { recordChatappEvents } from '../db/repositories/chatapp-events.js';
import type { AnswerChatappEventPayload } from '../jobs/definitions/answer-chatapp-event.js';
import { answerChatappEvent } from './answer-chatapp-event.js';
import { EXTERNAL_CHANNEL_REFUSAL } from './chatapp-reply.js';
import { installSlackApp } from './install-slack-app.js';

const CLIENT_ID = '1515151515.1616161616';
const CLIENT_SECRET = 'answer-test-slack-secret';
const WORKSPACE = 'T0ANSWER01';

let eventCounter = 0;

describe('answerChatappEvent', () => {
  let slack: FakeSlackServer;
  let testApp: TestApp;
  let installation: FakeSlackInstallation;
  let owner: SignedInUser;
  beforeAll(async () => {
    slack = await FakeSlackServer.start();
    slack.registerApp({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
    testApp = await startTestApp({
      env: { SLACK_CLIENT_ID: CLIENT_ID, SLACK_CLIENT_SECRET: CLIENT_SECRET, SLACK_API_URL: slack.url },
      worker: true,
    });
    owner = await signedInUser(testApp);
    installation = slack.issueCode('answer-code', CLIENT_ID, { teamId: WORKSPACE });
    await installSlackApp(testApp.runtime.deps, owner.caller, 'answer-code');
    await indexTexts(testApp, owner.caller, [
      {
        external_id: 'keys',
        title: 'Office keys',
        url: 'https://intranet/keys',
        text: 'The spare key is kept in the top drawer of reception.',
      },
    ]);
  });
  afterAll(async () => {
    await testApp.close();
    await slack.close();
  });

  /** A question recorded as receiveChatappEvent records it (its job is run here, by the test). */
  async function recordedQuestion(
    fields: Partial<AnswerChatappEventPayload> = {},
  ): Promise<AnswerChatappEventPayload> {
    eventCounter += 1;
    const payload: AnswerChatappEventPayload = {
      workspaceId: WORKSPACE,
      eventId: `Ev0ANSW${String(eventCounter).padStart(5, '0')}`,
      channel: 'C0GENERAL1',
      ts: `${1_700_000_000 + eventCounter}.000200`,
      text: `<@${installation.botUserId}> Where is the spare key?`,
      user: 'U0ASKER01',
      externalShared: false,
      ...fields,
    };
    await recordChatappEvents(testApp.runtime.deps.sql, [
      { workspaceId: WORKSPACE, eventId: payload.eventId, teamId: owner.caller.teamId },
    ]);
    return payload;
  }

  const attempt = (finalAttempt = false) => ({ signal: new AbortController().signal, finalAttempt });
  const postedFor = (payload: AnswerChatappEventPayload) =>
    slack.messages.filter((message) => message.threadTs === (payload.threadTs ?? payload.ts));

  it('answers in the question’s thread from the team’s documents, as the bot, once', async () => {
    const { deps } = testApp.runtime;
    const payload = await recordedQuestion();
    const outcome = await answerChatappEvent(deps, payload, attempt());
    const [posted, ...more] = postedFor(payload);
    expect(more).toEqual([]);
    expect(outcome).toEqual({ status: 'answered', reply_ts: posted?.ts });
    expect(posted).toMatchObject({ channel: 'C0GENERAL1', token: installation.botToken });
    expect(JSON.stringify(posted?.blocks)).toContain('top drawer of reception');
    expect(JSON.stringify(posted?.blocks)).toContain('https://intranet/keys');
    // Run again (a job retried after a crash): no second reply.
    expect(await answerChatappEvent(deps, payload, attempt())).toEqual(outcome);
    expect(postedFor(payload)).toHaveLength(1);
  });

  it('says in a channel shared with another organisation that it cannot answer there', async () => {
    const payload = await recordedQuestion({ externalShared: true, threadTs: '1699999999.000009' });
    const outcome = await answerChatappEvent(testApp.runtime.deps, payload, attempt());
    expect(outcome).toMatchObject({ status: 'refused' });
    expect(postedFor(payload).map((message) => message.text)).toEqual([EXTERNAL_CHANNEL_REFUSAL]);
  });

  it('does nothing for an event no one recorded', async () => {
    const payload: AnswerChatappEventPayload = {
      workspaceId: WORKSPACE,
      eventId: 'Ev0NEVERSEEN',
      channel: 'C0GENERAL1',
      ts: '1700009999.000001',
      text: 'Hello?',
      user: 'U0ASKER01',
      externalShared: false,
    };
    expect(await answerChatappEvent(testApp.runtime.deps, payload, attempt())).toMatchObject({
      status: 'forgotten',
    });
    expect(postedFor(payload)).toEqual([]);
  });

  it('rethrows Slack’s refusal, and on the final attempt records the event as failed', async () => {
    const { deps } = testApp.runtime;
    const payload = await recordedQuestion();
    slack.failNext('chat.postMessage', 'channel_not_found');
    expect(await rejectionOf(answerChatappEvent(deps, payload, attempt(true)))).toBeInstanceOf(Error);
    expect(await answerChatappEvent(deps, payload, attempt())).toMatchObject({ status: 'failed' });
    expect(postedFor(payload)).toEqual([]);
  });
});

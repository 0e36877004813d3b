import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeSlackInstallation, FakeSlackServer } from '../../test/fakes/fake-slack-server.js';
import { startTestApp, type TestApp } from '../../test/helpers/test-app.js';
import {
  indexTexts,
  rejectionOf,
  type SignedInUser,
  signedInUser,
} from '../../test/helpers/use-case-harness.js';
import { memberReader, type Reader, teamReader } from '../access.js';
import { slackMessageToPlainText } from '../adapters/slack/mrkdwn.js';
import type { Answerer, ConversationTurn } from '../answering/answerer.js';
import { chatappEventStatus, recordChatappEvents } from '../db/repositories/chatapp-events.js';
import type { AnswerChatappEventPayload } from '../jobs/definitions/answer-chatapp-event.js';
import { JobError } from '../jobs/retry-policy.js';
import type { TeamSearch } from '../retrieval/search-types.js';
import { answerChatappEvent, type ChatappQuestionPayload } from './answer-chatapp-event.js';
import { EXTERNAL_CHANNEL_REFUSAL } from './chatapp-reply.js';
import type { ServiceDependencies } from './dependencies.js';
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
    // All indexed before any search: search caches the team's statistics a while, and a follow-up's
    // topic is weighed by them.
    await indexTexts(testApp, owner.caller, [
      {
        external_id: 'keys',
        title: 'Office keys',
        url: 'https://intranet/keys',
        text: 'The spare key is kept in the top drawer of reception.',
      },
      {
        external_id: 'espresso',
        title: 'Espresso machine care',
        url: 'https://intranet/espresso',
        text: 'Descale the espresso machine every four weeks, or sooner when its warning light shows: how often depends on the water. To descale it, dissolve one descaling tablet in the water tank and run the rinse programme twice.',
      },
      {
        external_id: 'plants',
        title: 'Office plants',
        url: 'https://intranet/plants',
        text: 'How often should I water the office plants? Water them every Monday; the cacti only once a month.',
      },
    ]);
  });
  afterAll(async () => {
    await testApp.close();
    await slack.close();
  });

  /** A question recorded as receiveChatappEvent records it (its job is run here, by the test). */
  async function recordedQuestion(
    fields: Partial<ChatappQuestionPayload> = {},
  ): Promise<ChatappQuestionPayload> {
    eventCounter += 1;
    const payload: ChatappQuestionPayload = {
      workspaceId: WORKSPACE,
      eventId: `Ev0ANSW${String(eventCounter).padStart(5, '0')}`,
      channel: 'C0GENERAL1',
      ts: `${1_700_000_000 + eventCounter}.000200`,
      text: `<@${installation.botUserId}> Where is the spare key?`,
      user: 'U0ASKER01',
      externalShared: false,
      ...fields,
    };
    await recordChatappEvents(testApp.runtime.database.sql, [
      { workspaceId: payload.workspaceId, eventId: payload.eventId, teamId: owner.caller.teamId },
    ]);
    return payload;
  }

  const attempt = (finalAttempt = false) => ({ signal: new AbortController().signal, finalAttempt });
  const postedFor = (payload: AnswerChatappEventPayload) =>
    slack.messages.filter((message) => message.threadTs === (payload.threadTs ?? payload.ts));

  /** The app's dependencies, with a search that records whom each search reads for. */
  function recordingDeps(): { deps: ServiceDependencies; readers: Reader[] } {
    const { deps } = testApp.runtime;
    const readers: Reader[] = [];
    const search: TeamSearch = {
      search: (request) => {
        readers.push(request.reader);
        return deps.search.search(request);
      },
      analyze: (texts) => deps.search.analyze(texts),
      termStatistics: (teamId, terms) => deps.search.termStatistics(teamId, terms),
    };
    return { deps: { ...deps, search }, readers };
  }

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

  describe('who reads the answer', () => {
    const OWNER_SLACK_ID = 'U0OWNER001';
    let outsider: SignedInUser;
    beforeAll(async () => {
      // Slack keeps the case the person typed; the team stores addresses lower-cased.
      slack.addUser({ id: OWNER_SLACK_ID, teamId: WORKSPACE, email: owner.caller.email.toUpperCase() });
      outsider = await signedInUser(testApp);
      slack.addUser({ id: 'U0OUTSIDE1', teamId: WORKSPACE, email: outsider.caller.email });
      slack.addUser({ id: 'U0NOEMAIL1', teamId: WORKSPACE });
    });
    const direct = (user: string) => ({
      channel: `D0${user.slice(2)}`,
      user,
      direct: true,
      text: 'Where is the spare key?',
    });
    const usersInfoCallsFor = (user: string) =>
      slack.callsTo('users.info').filter((call) => call.body.user === user).length;

    it("answers a member's direct message with that member's access, found by their Slack e-mail", async () => {
      const { deps, readers } = recordingDeps();
      const payload = await recordedQuestion(direct(OWNER_SLACK_ID));
      const before = usersInfoCallsFor(OWNER_SLACK_ID);
      expect(await answerChatappEvent(deps, payload, attempt())).toMatchObject({ status: 'answered' });
      expect(readers).toEqual([memberReader(owner.caller)]);
      expect(usersInfoCallsFor(OWNER_SLACK_ID)).toBe(before + 1);
      expect(JSON.stringify(postedFor(payload)[0]?.blocks)).toContain('top drawer of reception');
    });

    it('answers a mention in a channel for the whole team, without asking Slack who asked', async () => {
      const { deps, readers } = recordingDeps();
      const before = usersInfoCallsFor(OWNER_SLACK_ID);
      const mention = await recordedQuestion({ user: OWNER_SLACK_ID, direct: false });
      // A job queued before `direct` was carried is answered as in a channel.
      const { direct: _unknown, ...older } = await recordedQuestion({ user: OWNER_SLACK_ID });
      for (const payload of [mention, older]) {
        expect(await answerChatappEvent(deps, payload, attempt())).toMatchObject({ status: 'answered' });
      }
      expect(readers).toEqual([teamReader(owner.caller.teamId), teamReader(owner.caller.teamId)]);
      expect(usersInfoCallsFor(OWNER_SLACK_ID)).toBe(before);
    });

    it("answers anyone else's direct message for the whole team: unknown, without an e-mail, of another team", async () => {
      const { deps, readers } = recordingDeps();
      for (const user of ['U0STRANGE1', 'U0NOEMAIL1', 'U0OUTSIDE1']) {
        const payload = await recordedQuestion(direct(user));
        expect(await answerChatappEvent(deps, payload, attempt())).toMatchObject({ status: 'answered' });
        expect(usersInfoCallsFor(user)).toBeGreaterThan(0);
      }
      expect(readers).toEqual(Array.from({ length: 3 }, () => teamReader(owner.caller.teamId)));
      // The outsider's own team is not searched for them either.
      expect(readers.map((reader) => reader.teamId)).not.toContain(outsider.caller.teamId);
    });

    it('retries when Slack cannot say for now who asked, answering nothing meanwhile', async () => {
      const { deps, readers } = recordingDeps();
      const payload = await recordedQuestion(direct(OWNER_SLACK_ID));
      slack.rateLimitNext('users.info', 3);
      const failure = await rejectionOf(answerChatappEvent(deps, payload, attempt()));
      expect(failure).toBeInstanceOf(JobError);
      expect(failure).toMatchObject({ retryable: true, retryAfterSeconds: 3 });
      expect(postedFor(payload)).toEqual([]);
      expect(readers).toEqual([]);
      expect(
        (await chatappEventStatus(testApp.runtime.database.sql, WORKSPACE, payload.eventId))?.status,
      ).toBe('queued');
      expect(await answerChatappEvent(deps, payload, attempt())).toMatchObject({ status: 'answered' });
      expect(readers).toEqual([memberReader(owner.caller)]);
    });
  });

  describe('a follow-up in a Slack thread', () => {
    const FOLLOW_UP = 'How often should I do that?';
    /** The app's dependencies, with an answerer that records the memory each answer is given. */
    function memoryDeps(): { deps: ServiceDependencies; histories: (readonly ConversationTurn[])[] } {
      const { deps } = testApp.runtime;
      const histories: (readonly ConversationTurn[])[] = [];
      const answerer: Answerer = {
        kind: deps.answerer.kind,
        answer: (input) => {
          histories.push(input.history);
          return deps.answerer.answer(input);
        },
      };
      return { deps: { ...deps, answerer }, histories };
    }

    const mention = (text: string) => `<@${installation.botUserId}> ${text}`;
    /** A person's message posted in a thread (to Slack), then recorded as a question for the bot. */
    async function askedInThread(question: {
      channel: string;
      threadTs: string;
      text: string;
      workspaceId?: string;
    }) {
      const { workspaceId, ...message } = question;
      const posted = slack.addThreadMessage({ ...message, user: 'U0ASKER01' });
      return recordedQuestion({
        ...message,
        ts: posted.ts,
        ...(workspaceId === undefined ? {} : { workspaceId }),
      });
    }
    const blocksOf = (ts: unknown) =>
      JSON.stringify(slack.messages.find((message) => message.ts === ts)?.blocks);

    it("answers from the thread's earlier question: the bot's answers are its turns, the people's the questions", async () => {
      const { deps, histories } = memoryDeps();
      const channel = 'C0KITCHEN1';
      const firstText = mention('How do I descale the espresso machine?');
      const first = slack.addThreadMessage({ channel, user: 'U0ASKER01', text: firstText });
      const firstAnswer = await answerChatappEvent(
        deps,
        await recordedQuestion({ channel, ts: first.ts, text: firstText }),
        attempt(),
      );
      expect(blocksOf(firstAnswer.reply_ts)).toContain('https://intranet/espresso');
      const before = slack.callsTo('conversations.replies').length;

      const payload = await askedInThread({ channel, threadTs: first.ts, text: mention(FOLLOW_UP) });
      const outcome = await answerChatappEvent(deps, payload, attempt());
      expect(outcome).toMatchObject({ status: 'answered' });
      expect(blocksOf(outcome.reply_ts)).toContain('every four weeks');
      expect(blocksOf(outcome.reply_ts)).toContain('https://intranet/espresso');

      const calls = slack.callsTo('conversations.replies').slice(before);
      expect(calls).toHaveLength(1);
      expect(calls[0]?.body).toMatchObject({
        channel,
        ts: first.ts,
        latest: payload.ts,
        inclusive: 'false',
      });
      expect(calls[0]?.headers.authorization).toBe(`Bearer ${installation.botToken}`);
      const answered = slack.messages.find((message) => message.ts === firstAnswer.reply_ts);
      expect(histories.at(-1)).toEqual([
        { role: 'user', content: 'How do I descale the espresso machine?' },
        { role: 'assistant', content: slackMessageToPlainText(answered?.text ?? '', undefined) },
      ]);
      // The answer's text is the answer alone: its sources are only in its blocks.
      expect(histories.at(-1)?.[1]?.content).not.toContain('intranet/espresso');

      // The same words outside the thread: no memory, and not about the espresso machine.
      const alone = await recordedQuestion({ channel, text: mention(FOLLOW_UP) });
      const aloneOutcome = await answerChatappEvent(deps, alone, attempt());
      expect(histories.at(-1)).toEqual([]);
      expect(slack.callsTo('conversations.replies').slice(before)).toHaveLength(1);
      expect(aloneOutcome).toMatchObject({ status: 'answered' });
      expect(blocksOf(aloneOutcome.reply_ts)).not.toContain('https://intranet/espresso');
    });

    it('answers without memory where the install may not read the thread (no channels:history)', async () => {
      const { deps, histories } = memoryDeps();
      const narrow = slack.issueCode('narrow-code', CLIENT_ID, {
        teamId: 'T0NOHIST01',
        scope: 'app_mentions:read,chat:write,im:history,users:read,users:read.email',
      });
      await installSlackApp(deps, owner.caller, 'narrow-code');
      const channel = 'C0NOHIST01';
      const firstText = `<@${narrow.botUserId}> How do I descale the espresso machine?`;
      const first = slack.addThreadMessage({ channel, user: 'U0ASKER01', text: firstText });
      const followUpText = `<@${narrow.botUserId}> ${FOLLOW_UP}`;
      const before = slack.callsTo('conversations.replies').length;
      const payload = await askedInThread({
        workspaceId: 'T0NOHIST01',
        channel,
        threadTs: first.ts,
        text: followUpText,
      });
      const outcome = await answerChatappEvent(deps, payload, attempt());
      expect(outcome).toMatchObject({ status: 'answered' });
      expect(slack.messages.find((message) => message.ts === outcome.reply_ts)).toMatchObject({
        threadTs: first.ts,
        token: narrow.botToken,
      });
      expect(slack.callsTo('conversations.replies').slice(before)).toHaveLength(1);
      expect(histories).toEqual([[]]);
      expect(blocksOf(outcome.reply_ts)).not.toContain('https://intranet/espresso');
    });

    it('retries when Slack cannot show the thread for now, and answers without memory on the last attempt', async () => {
      const { deps, histories } = memoryDeps();
      const channel = 'C0KITCHEN2';
      const first = slack.addThreadMessage({
        channel,
        user: 'U0ASKER01',
        text: mention('How do I descale the espresso machine?'),
      });
      const payload = await askedInThread({ channel, threadTs: first.ts, text: mention(FOLLOW_UP) });
      slack.rateLimitNext('conversations.replies', 4, 2);
      const failure = await rejectionOf(answerChatappEvent(deps, payload, attempt()));
      expect(failure).toMatchObject({ retryable: true, retryAfterSeconds: 4 });
      expect(slack.messages.filter((message) => message.threadTs === first.ts)).toEqual([]);
      expect(await answerChatappEvent(deps, payload, attempt(true))).toMatchObject({ status: 'answered' });
      expect(histories).toEqual([[]]);
    });
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

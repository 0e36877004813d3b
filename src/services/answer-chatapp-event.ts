import { memberReader, type Reader, teamReader } from '../access.js';
import { slackMessageToPlainText } from '../adapters/slack/mrkdwn.js';
import type { SlackThreadMessage } from '../adapters/slack/slack-messenger.js';
import { AnswerError } from '../answering/answer-error.js';
import type { ConversationTurn } from '../answering/answerer.js';
import type { ChatappEventStatus } from '../db/repositories/chatapp-events.js';
import type { AnswerChatappEventPayload } from '../jobs/definitions/answer-chatapp-event.js';
import type { JobOutput } from '../jobs/job-queue.js';
import { JobError, toJobError } from '../jobs/retry-policy.js';
import { answerQuestion } from './answer-question.js';
import {
  answerReply,
  type ChatappReply,
  EMPTY_QUESTION_REPLY,
  EXTERNAL_CHANNEL_REFUSAL,
  FAILED_ANSWER_REPLY,
  plainReply,
  type ReplySource,
  replySourceOf,
} from './chatapp-reply.js';
import type { ServiceDependencies } from './dependencies.js';

/** A recorded question as its answer job carries it (`direct`: asked in a direct message). */
export type ChatappQuestionPayload = AnswerChatappEventPayload;

export interface AnswerAttempt {
  readonly signal: AbortSignal;
  /** No retry follows this attempt: a failure is also told to the asker. */
  readonly finalAttempt: boolean;
}

/**
 * Answers one recorded Slack question in its thread, from the documents of the team linked to
 * the workspace that its readers may open: in a direct message from a member (by their Slack
 * e-mail), what that member may open; anywhere else, and for anyone else, what the whole team may
 * open. In a channel shared with another organisation, says it cannot answer there. A question
 * in a thread continues the thread's conversation (`threadHistory`).
 * Idempotent per event: an event already replied to is not replied to again. A failure another
 * attempt may cure is thrown (the job retries); otherwise the asker is told it failed.
 */
export async function answerChatappEvent(
  deps: ServiceDependencies,
  payload: ChatappQuestionPayload,
  attempt: AnswerAttempt,
): Promise<JobOutput> {
  const { workspaceId, eventId } = payload;
  const recorded = await deps.data.chatappEvents.chatappEventStatus(workspaceId, eventId);
  if (recorded === undefined || recorded.status !== 'queued') {
    // An earlier attempt replied and recorded it, then died before its job completed; or the
    // team was deleted since (its events with it).
    return { status: recorded?.status ?? 'forgotten', reply_ts: recorded?.replyTs ?? null };
  }
  const installation = await deps.data.chatappEvents.findChatappInstallation(workspaceId);
  const botToken =
    installation?.secretsSealed == null
      ? undefined
      : deps.secrets.openJson<{ bot_token?: string }>(installation.secretsSealed).bot_token;
  if (installation === undefined || botToken === undefined) {
    // Uninstalled since the question came: there is no one left to answer as.
    await deps.data.chatappEvents.finishChatappEvent(workspaceId, eventId, 'failed', null);
    return { status: 'failed', reason: 'installation_gone' };
  }
  const thread = { channel: payload.channel, threadTs: payload.threadTs ?? payload.ts };
  const post = async (reply: ChatappReply, status: Exclude<ChatappEventStatus, 'queued'>) => {
    let ts: string;
    try {
      ({ ts } = await deps.slackMessenger.postMessage(botToken, { ...thread, ...reply }));
    } catch (error) {
      if (attempt.finalAttempt || !toJobError(error).retryable) {
        await deps.data.chatappEvents.finishChatappEvent(workspaceId, eventId, 'failed', null);
      }
      throw error;
    }
    await deps.data.chatappEvents.finishChatappEvent(workspaceId, eventId, status, ts);
    return { status, reply_ts: ts };
  };

  if (payload.externalShared) return post(plainReply(EXTERNAL_CHANNEL_REFUSAL), 'refused');
  const question = slackMessageToPlainText(payload.text, installation.botUserId);
  if (question === '') return post(plainReply(EMPTY_QUESTION_REPLY), 'answered');

  let reply: ChatappReply;
  try {
    const reader = await readerOf(deps, installation.teamId, botToken, payload);
    const history = await threadHistory(deps, installation.botUserId, botToken, payload, attempt);
    reply = await composeAnswer(deps, reader, question, history, attempt.signal);
  } catch (error) {
    const failure = answerFailure(error);
    if (!attempt.finalAttempt && failure.retryable) throw failure;
    await post(plainReply(FAILED_ANSWER_REPLY), 'failed');
    throw failure;
  }
  return post(reply, 'answered');
}

/**
 * Who reads the reply. In a direct message, the asker: with their own access when the e-mail
 * Slack knows for them is an active member's of this team. Anyone else in a direct message, and
 * everyone present in a channel, read what the whole team may open.
 */
async function readerOf(
  deps: ServiceDependencies,
  teamId: number,
  botToken: string,
  payload: ChatappQuestionPayload,
): Promise<Reader> {
  if (payload.direct !== true) return teamReader(teamId);
  const email = await deps.slackMessenger.userEmail(botToken, payload.user);
  if (email === undefined) return teamReader(teamId);
  const member = await deps.data.teams.findTeamMemberByEmail(teamId, email);
  return member === undefined ? teamReader(teamId) : memberReader(member);
}

/**
 * The conversation a question in a thread continues, as the web chat's memory is: the thread's
 * last `memoryMessages` before it, the bot's own messages its answers and anyone else's the
 * questions. A question that starts no thread or is its parent has none; so has a direct message
 * outside a thread (the direct message's earlier messages are not read: a thread is where Slack
 * keeps one conversation). A thread Slack will not show (an install from before the `*:history`
 * scopes, a channel the bot is not in) is answered without memory. A failure another attempt
 * may cure is retried while attempts remain; the last one answers without memory rather than not
 * at all.
 */
async function threadHistory(
  deps: ServiceDependencies,
  botUserId: string | undefined,
  botToken: string,
  payload: ChatappQuestionPayload,
  attempt: AnswerAttempt,
): Promise<ConversationTurn[]> {
  const limit = deps.config.answering.memoryMessages;
  const { threadTs } = payload;
  if (threadTs === undefined || threadTs === payload.ts || limit === 0) return [];
  let messages: SlackThreadMessage[];
  try {
    messages = await deps.slackMessenger.threadMessages(botToken, payload.channel, threadTs, {
      before: payload.ts,
      limit,
    });
  } catch (error) {
    if (attempt.finalAttempt && toJobError(error).retryable) return [];
    throw error;
  }
  return messages.flatMap((message): ConversationTurn[] => {
    // The bot's reply `text` is its answer alone (the sources are in its blocks: chatapp-reply.ts).
    const content = slackMessageToPlainText(message.text, botUserId);
    return content === '' ? [] : [{ role: isBotMessage(message, botUserId) ? 'assistant' : 'user', content }];
  });
}

/**
 * Whether the bot posted a thread's message: its bot user wrote it. An installation stored
 * without its bot user (Slack did not say) counts any app's message as the bot's.
 */
function isBotMessage(message: SlackThreadMessage, botUserId: string | undefined): boolean {
  return botUserId === undefined ? message.botId !== undefined : message.user === botUserId;
}

/**
 * The whole answer (the stream gathered: Slack gets one message) with its cited sources, each a
 * link: to its URL, else to its page in the web app.
 */
async function composeAnswer(
  deps: ServiceDependencies,
  reader: Reader,
  question: string,
  history: readonly ConversationTurn[],
  signal: AbortSignal,
): Promise<ChatappReply> {
  let text = '';
  let sources: readonly ReplySource[] = [];
  for await (const event of answerQuestion(deps, { reader, question, history, signal })) {
    if (event.type === 'answer') text += event.text;
    else if (event.type === 'sources') {
      sources = event.sources.map((source) => replySourceOf(source, deps.config.publicUrl));
    }
  }
  return answerReply(text, sources);
}

/** An answering failure for the job, keeping the answerer's word on retrying (AnswerError). */
function answerFailure(error: unknown): JobError {
  if (!(error instanceof AnswerError)) return toJobError(error);
  if (error.retryable) {
    const reason =
      error.code === 'model_rate_limited'
        ? 'rate_limited'
        : error.code === 'model_timeout'
          ? 'timeout'
          : 'upstream_unavailable';
    return JobError.retryable(reason, error.message, {
      cause: error,
      retryAfterSeconds: error.options.retryAfterSeconds,
    });
  }
  return JobError.permanent(error.code === 'model_refused' ? 'unauthorized' : 'bad_request', error.message, {
    cause: error,
  });
}

import { memberReader, type Reader, teamReader } from '../access.js';
import { slackMessageToPlainText } from '../adapters/slack/mrkdwn.js';
import { AnswerError } from '../answering/answer-error.js';
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
 * open. In a channel shared with another organisation, says it cannot answer there.
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
    reply = await composeAnswer(deps, reader, question, attempt.signal);
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

/** The whole answer (the stream gathered: Slack gets one message) with its cited sources. */
async function composeAnswer(
  deps: ServiceDependencies,
  reader: Reader,
  question: string,
  signal: AbortSignal,
): Promise<ChatappReply> {
  let text = '';
  let sources: readonly ReplySource[] = [];
  for await (const event of answerQuestion(deps, { reader, question, history: [], signal })) {
    if (event.type === 'answer') text += event.text;
    else if (event.type === 'sources') sources = event.sources;
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

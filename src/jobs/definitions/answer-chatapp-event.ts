import { type Static, Type } from 'typebox';
import {
  DEFAULT_HEARTBEAT,
  defineJob,
  type JobContext,
  type JobDefinition,
  type JobOutput,
} from '../job-queue.js';
import type { RetrySettings } from '../retry-policy.js';

/** The queue of Slack questions to answer; one job per recorded event. */
export const ANSWER_CHATAPP_EVENT_JOB = 'answer-chatapp-event';

/**
 * Exponential from about 2 s, five times: a minute or two in all, longer when Slack's
 * Retry-After says so. An answer much later than that is no longer one the asker waits for.
 */
export const ANSWER_CHATAPP_EVENT_RETRY: RetrySettings = {
  limit: 5,
  backoff: { type: 'exponential', delaySeconds: 2 },
};

/** Questions one worker process answers at once: mostly waiting on search, a model and Slack. */
export const ANSWER_CHATAPP_EVENT_CONCURRENCY = 4;

const SlackId = Type.String({ minLength: 1, maxLength: 255 });

const AnswerChatappEventPayloadSchema = Type.Object({
  /** The Slack workspace (team) id: which installation, hence which of our teams. */
  workspaceId: SlackId,
  eventId: SlackId,
  channel: SlackId,
  /** The question's own message. */
  ts: SlackId,
  /** The thread it was asked in, if any. */
  threadTs: Type.Optional(SlackId),
  /** As Slack sent it (mentions and escapes included). */
  text: Type.String({ maxLength: 40_000 }),
  user: SlackId,
  /** Asked in a direct message to the bot (`channel_type` `im`): only the asker reads the answer. Absent in older jobs: a channel. */
  direct: Type.Optional(Type.Boolean()),
  /** Asked in a channel shared with another organisation. */
  externalShared: Type.Boolean(),
});

export type AnswerChatappEventPayload = Static<typeof AnswerChatappEventPayloadSchema>;

/** What runs one attempt; told whether it is the last, so it can give up politely. */
export type AnswerChatappEventHandler = (
  payload: AnswerChatappEventPayload,
  context: JobContext,
) => Promise<JobOutput>;

/** Answers a Slack question in its thread; the handler is the use case, wired in deps.ts. */
export function answerChatappEventJob(
  handler: AnswerChatappEventHandler,
  concurrency = ANSWER_CHATAPP_EVENT_CONCURRENCY,
): JobDefinition<AnswerChatappEventPayload> {
  return defineJob({
    name: ANSWER_CHATAPP_EVENT_JOB,
    payloadSchema: AnswerChatappEventPayloadSchema,
    retry: ANSWER_CHATAPP_EVENT_RETRY,
    // Retrieval plus an LLM's answer; the lease brings a dead worker's question back within a minute.
    expireInSeconds: 10 * 60,
    heartbeat: DEFAULT_HEARTBEAT,
    concurrency,
    handler,
  });
}

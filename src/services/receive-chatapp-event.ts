import { ServiceError } from '../errors.js';
import {
  ANSWER_CHATAPP_EVENT_JOB,
  type AnswerChatappEventPayload,
} from '../jobs/definitions/answer-chatapp-event.js';
import type { ChatappQuestionPayload } from './answer-chatapp-event.js';
import type { RecordedQuestion, ServiceDependencies } from './dependencies.js';

/** The `event` of a Slack Events API delivery; fields beyond these are kept but not read. */
export interface ChatappEvent {
  readonly type: string;
  readonly text?: string | null;
  /** A user id in message events (an object in some other event types). */
  readonly user?: unknown;
  readonly ts?: string | null;
  /** A channel id in message events (an object in some other event types). */
  readonly channel?: unknown;
  readonly channel_type?: string | null;
  readonly thread_ts?: string | null;
  readonly bot_id?: string | null;
  readonly subtype?: string | null;
  readonly edited?: unknown;
}

/** The chat application event envelope (spec 2.8), as far as handling it needs. */
export interface ChatappEnvelope {
  readonly type: string;
  readonly team_id?: string | null;
  readonly event_id?: string | null;
  readonly challenge?: string | null;
  readonly is_ext_shared_channel?: boolean | null;
  readonly event?: ChatappEvent | null;
}

export type ChatappEventOutcome =
  | { readonly kind: 'challenge'; readonly challenge: string }
  /** Recorded, its answer queued. */
  | { readonly kind: 'queued' }
  /** This event was recorded before: a retry or a re-delivery. */
  | { readonly kind: 'duplicate' }
  /** Not a question for the bot (a bot's message, an edit, another event type, …). */
  | { readonly kind: 'ignored'; readonly reason: string }
  /** No team installed the bot into this workspace. */
  | { readonly kind: 'unknown_workspace'; readonly workspaceId: string };

/**
 * Message subtypes a person writes (a file with a comment, a thread reply also sent to the
 * channel); every other subtype is a bot, an edit, a deletion or a channel notice.
 */
const PERSON_SUBTYPES: ReadonlySet<string> = new Set(['file_share', 'thread_broadcast']);

const SLACK_ID_MAX = 255;
const QUESTION_MAX_CHARS = 40_000;

/**
 * Handles one signed Slack Events API delivery: answers the URL verification, and for a
 * question to the bot (an `app_mention`, or a direct message) records the event and queues its
 * answer in one transaction, only the first time its `event_id` arrives. Everything else is
 * acknowledged and dropped.
 */
export async function receiveChatappEvent(
  deps: ServiceDependencies,
  envelope: ChatappEnvelope,
): Promise<ChatappEventOutcome> {
  if (envelope.type === 'url_verification') {
    if (typeof envelope.challenge !== 'string') {
      throw ServiceError.validation([
        { type: 'missing', loc: ['body', 'challenge'], msg: 'Field required', input: envelope },
      ]);
    }
    return { kind: 'challenge', challenge: envelope.challenge };
  }
  if (envelope.type !== 'event_callback') return ignored(`envelope type ${envelope.type}`);
  const event = envelope.event;
  if (event === null || event === undefined) return ignored('no event');
  const question = questionOf(event);
  if (typeof question === 'string') return ignored(question);
  const workspaceId = envelope.team_id;
  const eventId = envelope.event_id;
  if (
    typeof workspaceId !== 'string' ||
    workspaceId === '' ||
    typeof eventId !== 'string' ||
    eventId === ''
  ) {
    return ignored('no team_id or event_id');
  }
  const payload: ChatappQuestionPayload = {
    workspaceId,
    eventId,
    channel: question.channel,
    ts: question.ts,
    ...(question.threadTs === undefined ? {} : { threadTs: question.threadTs }),
    text: question.text,
    user: question.user,
    externalShared: envelope.is_ext_shared_channel === true,
    direct: question.direct,
  };
  const outcome = await deps.chatappQuestions.submit(payload);
  if (outcome === 'unknown_workspace') return { kind: 'unknown_workspace', workspaceId };
  if (outcome === 'from_the_bot') return ignored('the bot itself');
  return { kind: outcome };
}

/**
 * Records questions to the bot and queues their answers: for each question of a workspace
 * with an installation, not written by the bot itself, and whose event was not recorded before,
 * the event row and its answer job are written in one transaction (so a crash leaves both or
 * neither). Many questions arriving together share one lookup, two inserts and one commit
 * (`deps.chatappQuestions` batches them): Slack waits for this before its acknowledgement.
 */
export async function recordChatappQuestions(
  deps: Pick<ServiceDependencies, 'data' | 'jobs'>,
  questions: readonly AnswerChatappEventPayload[],
): Promise<RecordedQuestion[]> {
  const installations = await deps.data.chatappEvents.findChatappInstallations(
    questions.map((question) => question.workspaceId),
  );
  const outcomes: RecordedQuestion[] = [];
  const candidates: { index: number; question: AnswerChatappEventPayload; teamId: number }[] = [];
  questions.forEach((question, index) => {
    const installation = installations.get(question.workspaceId);
    if (installation === undefined) outcomes[index] = 'unknown_workspace';
    else if (installation.botUserId !== undefined && question.user === installation.botUserId) {
      outcomes[index] = 'from_the_bot';
    } else candidates.push({ index, question, teamId: installation.teamId });
  });
  if (candidates.length === 0) return outcomes;
  await deps.data.transaction(async (transaction) => {
    const recorded = await transaction.chatappEvents.recordChatappEvents(
      candidates.map(({ question, teamId }) => ({
        workspaceId: question.workspaceId,
        eventId: question.eventId,
        teamId,
      })),
    );
    const firsts = candidates.filter((_candidate, position) => recorded[position] === true);
    await transaction.jobs.sendMany(
      ANSWER_CHATAPP_EVENT_JOB,
      firsts.map(({ question }) => question),
    );
    candidates.forEach(({ index }, position) => {
      outcomes[index] = recorded[position] === true ? 'queued' : 'duplicate';
    });
  });
  if (outcomes.includes('queued')) wakeAnswersSoon(deps.jobs);
  return outcomes;
}

/**
 * How long answers wait before this process's workers look for them. Slack drops an event not
 * acknowledged within 3 s and the rest of a burst is usually still arriving: answering at once
 * (a search per question) would take the event loop and the database from those
 * acknowledgements (bench/answer), while a person waits seconds for an answer anyway.
 */
const ANSWER_WAKE_DELAY_MS = 250;
/** Queues with a wake already scheduled: one timer per burst, not one per batch. */
const wakePending = new WeakSet<object>();

function wakeAnswersSoon(jobs: Pick<ServiceDependencies['jobs'], 'wake'>): void {
  if (wakePending.has(jobs)) return;
  wakePending.add(jobs);
  setTimeout(() => {
    wakePending.delete(jobs);
    jobs.wake(ANSWER_CHATAPP_EVENT_JOB);
  }, ANSWER_WAKE_DELAY_MS).unref();
}

interface Question {
  readonly channel: string;
  readonly ts: string;
  readonly threadTs: string | undefined;
  readonly text: string;
  readonly user: string;
  /** A direct message to the bot, which only the asker reads. */
  readonly direct: boolean;
}

/** The question an event asks the bot, or why it asks none. */
function questionOf(event: ChatappEvent): Question | string {
  const direct = event.type === 'message' && event.channel_type === 'im';
  if (event.type !== 'app_mention' && !direct) {
    return event.type === 'message'
      ? `message in a ${event.channel_type ?? 'channel'}`
      : `event ${event.type}`;
  }
  if (typeof event.bot_id === 'string' && event.bot_id !== '') return 'a bot message';
  const subtype = event.subtype;
  if (typeof subtype === 'string' && subtype !== '' && !PERSON_SUBTYPES.has(subtype)) {
    return `message subtype ${subtype}`;
  }
  if (event.edited !== undefined && event.edited !== null) return 'an edited message';
  const { user, channel, ts } = event;
  if (typeof user !== 'string' || user === '') return 'no user';
  if (typeof channel !== 'string' || channel === '' || typeof ts !== 'string' || ts === '') {
    return 'no channel or ts';
  }
  if (user.length > SLACK_ID_MAX || channel.length > SLACK_ID_MAX) return 'not Slack ids';
  const threadTs =
    typeof event.thread_ts === 'string' && event.thread_ts !== '' ? event.thread_ts : undefined;
  // Slack cuts messages at 40,000 characters; a longer text is no question a person typed.
  return { channel, ts, threadTs, text: (event.text ?? '').slice(0, QUESTION_MAX_CHARS), user, direct };
}

function ignored(reason: string): ChatappEventOutcome {
  return { kind: 'ignored', reason };
}

import { SourceError, type SourceFailure } from '../source-error.js';

/** A Block Kit block, as `chat.postMessage` takes it (https://api.slack.com/reference/block-kit/blocks). */
export type SlackBlock =
  | { readonly type: 'section'; readonly text: SlackText }
  | { readonly type: 'context'; readonly elements: readonly SlackText[] }
  | { readonly type: 'divider' };

export interface SlackText {
  readonly type: 'mrkdwn' | 'plain_text';
  readonly text: string;
}

export interface SlackMessage {
  readonly channel: string;
  /** Reply in this thread (the parent message's `ts`). */
  readonly threadTs?: string;
  /** The plain-text fallback: notifications, and clients that cannot show blocks. */
  readonly text: string;
  readonly blocks?: readonly SlackBlock[];
}

/** A message of a thread, as `conversations.replies` tells it. */
export interface SlackThreadMessage {
  readonly ts: string;
  /** Who wrote it: a person, or a bot's user (a bot posting as itself has both). */
  readonly user?: string;
  /** Set when an app or integration posted it. */
  readonly botId?: string;
  /** As Slack stores it (mrkdwn: mentions, links and escapes); '' when it has none (a file alone). */
  readonly text: string;
}

/** The bot's calls to Slack's Web API: posting its messages, who asked, and what was said before. */
export interface SlackMessenger {
  /** Answers the posted message's `ts`; throws a `SlackApiError` saying whether a retry can help. */
  postMessage(botToken: string, message: SlackMessage): Promise<{ ts: string }>;
  /**
   * A workspace user's confirmed e-mail, lower-cased (`users.info`, with the `users:read.email`
   * scope), or undefined when Slack tells none: no e-mail (a bot, a guest without one), an
   * unconfirmed one, an unknown or hidden user, a token without the scope. Throws a `SlackApiError`
   * for what another attempt may cure (429, 5xx, network) and for a token Slack no longer takes.
   */
  userEmail(botToken: string, slackUserId: string): Promise<string | undefined>;
  /**
   * The last `limit` messages of the thread `threadTs` (its parent included) posted before the
   * message `before`, oldest first (`conversations.replies`, with the `*:history` scope of the
   * channel's kind). Empty when Slack will not show the thread: a token without the scope, a
   * channel the bot is not in, an unknown channel or thread. Throws a `SlackApiError` for what
   * another attempt may cure (429, 5xx, network) and for a token Slack no longer takes.
   */
  threadMessages(
    botToken: string,
    channel: string,
    threadTs: string,
    options: { readonly before: string; readonly limit: number },
  ): Promise<SlackThreadMessage[]>;
}

/** Orders two Slack message timestamps (`seconds.micros`): negative when `a` is earlier. */
export function compareSlackTs(a: string, b: string): number {
  const [aSeconds = '', aMicros = ''] = a.split('.');
  const [bSeconds = '', bMicros = ''] = b.split('.');
  return (
    Number(aSeconds) - Number(bSeconds) || Number(aMicros.padEnd(6, '0')) - Number(bMicros.padEnd(6, '0'))
  );
}

/**
 * A failed Slack Web API call. Retryable (429 with its `Retry-After`, 5xx, Slack's own
 * `internal_error`, network, time-out) or not (`invalid_auth`, `channel_not_found`,
 * `not_in_channel`, …); `slackError` is Slack's error code when it gave one.
 */
export class SlackApiError extends SourceError {
  constructor(
    failure: SourceFailure,
    readonly slackError: string,
    message: string,
    options: { readonly status?: number; readonly retryAfterSeconds?: number; readonly cause?: unknown } = {},
  ) {
    super(failure, message, options);
    this.name = 'SlackApiError';
  }
}

/** Slack's `{ok: false, error}` codes, by what they mean for another attempt. */
const FAILURE_BY_SLACK_ERROR: Readonly<Record<string, SourceFailure>> = {
  ratelimited: 'rate_limited',
  rate_limited: 'rate_limited',
  internal_error: 'unavailable',
  fatal_error: 'unavailable',
  service_unavailable: 'unavailable',
  request_timeout: 'timeout',
  not_authed: 'unauthorized',
  invalid_auth: 'unauthorized',
  account_inactive: 'unauthorized',
  token_revoked: 'unauthorized',
  token_expired: 'unauthorized',
  no_permission: 'permission_denied',
  missing_scope: 'permission_denied',
  not_in_channel: 'permission_denied',
  is_archived: 'permission_denied',
  restricted_action: 'permission_denied',
  restricted_action_read_only_channel: 'permission_denied',
  restricted_action_thread_only_channel: 'permission_denied',
  restricted_action_non_threadable_channel: 'permission_denied',
  team_access_not_granted: 'permission_denied',
  ekm_access_denied: 'permission_denied',
  channel_not_found: 'not_found',
  thread_not_found: 'not_found',
  user_not_found: 'not_found',
  user_not_visible: 'permission_denied',
  msg_too_long: 'too_large',
};

/** The failure one of Slack's error codes means; unknown codes are not retried (a bug, a bad request). */
export function slackFailureOf(slackError: string): SourceFailure {
  return FAILURE_BY_SLACK_ERROR[slackError] ?? 'bad_response';
}

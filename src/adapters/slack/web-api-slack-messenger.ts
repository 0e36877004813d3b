import {
  type ChatPostMessageArguments,
  type ConversationsRepliesResponse,
  ErrorCode,
  LogLevel,
  type UsersInfoResponse,
  WebAPIHTTPError,
  WebAPIPlatformError,
  WebAPIRateLimitedError,
  WebAPIRequestError,
  WebClient,
} from '@slack/web-api';
import { headerValue, parseRetryAfter } from '../http/headers.js';
import type { SourceFailure } from '../source-error.js';
import {
  compareSlackTs,
  SlackApiError,
  type SlackMessage,
  type SlackMessenger,
  type SlackThreadMessage,
  slackFailureOf,
} from './slack-messenger.js';

/** Block Kit blocks as the library types them (from @slack/types, not a dependency of ours). */
type PostedBlocks = NonNullable<Extract<ChatPostMessageArguments, { blocks?: unknown }>['blocks']>;

/** Why Slack will not tell a user's e-mail that is no failure: the asker then reads as the team. */
const EMAIL_UNKNOWN: ReadonlySet<SourceFailure> = new Set(['not_found', 'permission_denied']);
/**
 * Why Slack will not show a thread that is no failure: the question is then answered without
 * memory (`missing_scope` before the `*:history` scopes, `not_in_channel`, `channel_not_found`,
 * `thread_not_found`).
 */
const THREAD_UNSEEN: ReadonlySet<SourceFailure> = new Set(['not_found', 'permission_denied']);
/**
 * `conversations.replies` pages forward from the thread's parent, so the messages before the
 * question come last: pages of this size reach them in one request for most threads, and at most
 * this many pages are read. (Since 2025 Slack gives apps outside its Marketplace 15 messages a page
 * and one request a minute: a longer thread's second page is rate-limited, a retryable failure.)
 */
const THREAD_PAGE_SIZE = 200;
const THREAD_PAGES_LIMIT = 5;

/**
 * `chat.postMessage`, `users.info` and `conversations.replies` through `@slack/web-api`, at a
 * configurable API URL (a fake one in tests).
 */
export class WebApiSlackMessenger implements SlackMessenger {
  private readonly client: WebClient;

  constructor(apiUrl: string, options: { readonly timeoutMs?: number } = {}) {
    // The job that posts retries with backoff and Retry-After: the library's own retries would
    // only hold the job's worker for minutes (its default is ten tries in about thirty minutes).
    this.client = new WebClient(undefined, {
      slackApiUrl: apiUrl,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
      timeout: options.timeoutMs ?? 10_000,
      logLevel: LogLevel.ERROR,
    });
  }

  async postMessage(botToken: string, message: SlackMessage): Promise<{ ts: string }> {
    let ts: string | undefined;
    try {
      const response = await this.client.chat.postMessage({
        token: botToken,
        channel: message.channel,
        text: message.text,
        ...(message.threadTs === undefined ? {} : { thread_ts: message.threadTs }),
        ...(message.blocks === undefined ? {} : { blocks: [...message.blocks] as PostedBlocks }),
        // Source links would otherwise each unfold into a preview under the answer.
        unfurl_links: false,
        unfurl_media: false,
      });
      ts = response.ts;
    } catch (error) {
      throw slackApiError('chat.postMessage', error);
    }
    if (ts === undefined) {
      throw new SlackApiError('bad_response', 'no_ts', 'Slack answered chat.postMessage without a ts');
    }
    return { ts };
  }

  async userEmail(botToken: string, slackUserId: string): Promise<string | undefined> {
    let user: UsersInfoResponse['user'];
    try {
      ({ user } = await this.client.users.info({ token: botToken, user: slackUserId }));
    } catch (error) {
      const failure = slackApiError('users.info', error);
      // user_not_found, user_not_visible, missing_scope (installed before users:read.email), …
      if (error instanceof WebAPIPlatformError && EMAIL_UNKNOWN.has(failure.failure)) return undefined;
      throw failure;
    }
    // An address the user has not confirmed could be anyone's.
    if (user?.is_email_confirmed === false) return undefined;
    const email = user?.profile?.email?.trim().toLowerCase();
    return email === undefined || email === '' ? undefined : email;
  }

  async threadMessages(
    botToken: string,
    channel: string,
    threadTs: string,
    options: { readonly before: string; readonly limit: number },
  ): Promise<SlackThreadMessage[]> {
    if (options.limit <= 0) return [];
    let window: SlackThreadMessage[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < THREAD_PAGES_LIMIT; page += 1) {
      let response: ConversationsRepliesResponse;
      try {
        response = await this.client.conversations.replies({
          token: botToken,
          channel,
          ts: threadTs,
          latest: options.before,
          inclusive: false,
          limit: THREAD_PAGE_SIZE,
          ...(cursor === undefined ? {} : { cursor }),
        });
      } catch (error) {
        const failure = slackApiError('conversations.replies', error);
        if (error instanceof WebAPIPlatformError && THREAD_UNSEEN.has(failure.failure)) return [];
        throw failure;
      }
      for (const message of response.messages ?? []) {
        // Each message once, and only those before the question, whatever a page holds.
        if (message.ts === undefined || seen.has(message.ts)) continue;
        if (compareSlackTs(message.ts, options.before) >= 0) continue;
        seen.add(message.ts);
        window.push({
          ts: message.ts,
          text: message.text ?? '',
          ...(message.user === undefined ? {} : { user: message.user }),
          ...(message.bot_id === undefined ? {} : { botId: message.bot_id }),
        });
      }
      window = window.slice(-options.limit);
      cursor = response.response_metadata?.next_cursor;
      if (response.has_more !== true || cursor === undefined || cursor === '') return window;
    }
    // A thread longer than we page through: its last messages were not reached, and its first
    // ones are another conversation than the question's; none is better memory than those.
    return [];
  }
}

/** What `@slack/web-api` threw, as a `SlackApiError` that knows whether another attempt can help. */
export function slackApiError(method: string, error: unknown): SlackApiError {
  if (error instanceof WebAPIRateLimitedError) {
    return new SlackApiError('rate_limited', 'ratelimited', `Slack rate-limited ${method}`, {
      status: 429,
      retryAfterSeconds: error.retryAfter,
      cause: error,
    });
  }
  if (error instanceof WebAPIPlatformError) {
    const slackError = error.data.error;
    return new SlackApiError(
      slackFailureOf(slackError),
      slackError,
      `Slack refused ${method}: ${slackError}`,
      {
        cause: error,
      },
    );
  }
  if (error instanceof WebAPIHTTPError) {
    const status = error.statusCode;
    const failure = status === 429 ? 'rate_limited' : status >= 500 ? 'unavailable' : 'bad_response';
    const retryAfterSeconds = parseRetryAfter(headerValue(error.headers, 'retry-after'));
    return new SlackApiError(failure, `http_${status}`, `Slack answered ${method} with HTTP ${status}`, {
      status,
      cause: error,
      ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
    });
  }
  if (error instanceof WebAPIRequestError) {
    const timedOut = error.original.name === 'TimeoutError' || error.original.name === 'AbortError';
    return new SlackApiError(
      timedOut ? 'timeout' : 'unavailable',
      timedOut ? 'timeout' : 'network',
      timedOut ? `Slack did not answer ${method} in time` : `Slack could not be reached for ${method}`,
      { cause: error },
    );
  }
  // A 429 without a readable Retry-After: the library throws a plain error (WebClient.makeRequest).
  const message = error instanceof Error ? error.message : String(error);
  if (message.startsWith('Retry header did not contain a valid timeout')) {
    return new SlackApiError('rate_limited', 'ratelimited', `Slack rate-limited ${method}`, {
      status: 429,
      cause: error,
    });
  }
  const code = (error as { code?: unknown } | null)?.code;
  return new SlackApiError(
    'bad_response',
    typeof code === 'string' && code !== ErrorCode.PlatformError ? code : 'unknown_error',
    `${method} failed: ${message}`,
    { cause: error },
  );
}

import {
  type ChatPostMessageArguments,
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
import { SlackApiError, type SlackMessage, type SlackMessenger, slackFailureOf } from './slack-messenger.js';

/** Block Kit blocks as the library types them (from @slack/types, not a dependency of ours). */
type PostedBlocks = NonNullable<Extract<ChatPostMessageArguments, { blocks?: unknown }>['blocks']>;

/** Why Slack will not tell a user's e-mail that is no failure: the asker then reads as the team. */
const EMAIL_UNKNOWN: ReadonlySet<SourceFailure> = new Set(['not_found', 'permission_denied']);

/** `chat.postMessage` and `users.info` through `@slack/web-api`, at a configurable API URL (a fake one in tests). */
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

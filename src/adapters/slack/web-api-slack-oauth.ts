import { ErrorCode, LogLevel, WebClient } from '@slack/web-api';
import { ServiceError } from '../../errors.js';
import type { SlackInstallation, SlackOAuth } from './slack-oauth.js';

interface SlackClientError {
  code?: string;
  data?: { error?: string };
}

/** The real exchange, through `@slack/web-api` at a configurable API URL. */
export class WebApiSlackOAuth implements SlackOAuth {
  private readonly client: WebClient;

  constructor(
    apiUrl: string,
    private readonly clientId: string,
    private readonly clientSecret: string,
    private readonly redirectUri: string | undefined,
  ) {
    // One try with a time-out: a user is waiting on the registration.
    this.client = new WebClient(undefined, {
      slackApiUrl: apiUrl,
      retryConfig: { retries: 0 },
      timeout: 10_000,
      logLevel: LogLevel.ERROR,
      rejectRateLimitedCalls: true,
    });
  }

  async exchangeCode(code: string): Promise<SlackInstallation> {
    let response: Awaited<ReturnType<WebClient['oauth']['v2']['access']>>;
    try {
      response = await this.client.oauth.v2.access({
        client_id: this.clientId,
        client_secret: this.clientSecret,
        code,
        ...(this.redirectUri === undefined ? {} : { redirect_uri: this.redirectUri }),
      });
    } catch (error) {
      const slackError = error as SlackClientError;
      if (slackError.code === ErrorCode.PlatformError) {
        throw new ServiceError(
          'bad_gateway',
          `Slack refused the OAuth code: ${slackError.data?.error ?? 'unknown_error'}`,
        );
      }
      if (slackError.code === ErrorCode.RateLimitedError) {
        throw new ServiceError(
          'bad_gateway',
          'Slack rate-limited the OAuth code exchange; try again shortly',
          {
            retryable: true,
          },
        );
      }
      throw new ServiceError('bad_gateway', 'Slack could not be reached for the OAuth code exchange', {
        retryable: true,
      });
    }
    const teamId = response.team?.id;
    const botUserId = response.bot_user_id;
    const botToken = response.access_token;
    if (teamId === undefined || botUserId === undefined || botToken === undefined) {
      throw new ServiceError(
        'bad_gateway',
        'Slack answered the OAuth code exchange without a bot installation',
      );
    }
    return {
      slackTeamId: teamId,
      slackTeamName: response.team?.name ?? null,
      enterpriseId: response.enterprise?.id ?? null,
      appId: response.app_id ?? null,
      botUserId,
      botToken,
      scope: response.scope ?? null,
    };
  }
}

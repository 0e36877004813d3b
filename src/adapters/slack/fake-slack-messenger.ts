import { SlackApiError, type SlackMessage, type SlackMessenger, slackFailureOf } from './slack-messenger.js';

/** A message the fake accepted, with the token that posted it. */
export interface FakePostedMessage extends SlackMessage {
  readonly botToken: string;
  readonly ts: string;
}

/** In-memory stand-in: records messages; `failNext` makes the next posts fail as Slack would. */
export class FakeSlackMessenger implements SlackMessenger {
  readonly messages: FakePostedMessage[] = [];
  private readonly failures: SlackApiError[] = [];
  private counter = 0;

  /** The next call fails with Slack's `slackError` (e.g. `channel_not_found`, `ratelimited`). */
  failNext(slackError: string, options: { retryAfterSeconds?: number } = {}): void {
    this.failures.push(
      new SlackApiError(
        slackFailureOf(slackError),
        slackError,
        `Slack refused chat.postMessage: ${slackError}`,
        {
          ...(options.retryAfterSeconds === undefined
            ? {}
            : { retryAfterSeconds: options.retryAfterSeconds }),
        },
      ),
    );
  }

  async postMessage(botToken: string, message: SlackMessage): Promise<{ ts: string }> {
    const failure = this.failures.shift();
    if (failure !== undefined) throw failure;
    this.counter += 1;
    const ts = `1700000000.${String(this.counter).padStart(6, '0')}`;
    this.messages.push({ ...message, botToken, ts });
    return { ts };
  }
}

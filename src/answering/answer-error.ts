/** Why an answer could not be written; the message is fit for the person who asked. */
export type AnswerErrorCode =
  /** The model server is down, unreachable, or broke off mid-answer. */
  | 'model_unavailable'
  /** The model server asked us to slow down. */
  | 'model_rate_limited'
  /** The model server did not answer in time. */
  | 'model_timeout'
  /** The model server refused us (key, model name, quota): the service's settings need a look. */
  | 'model_refused'
  /** The model server answered something unusable (an empty answer, a request it could not take). */
  | 'model_bad_response';

/**
 * The error answerers throw. `retryable` tells a background job (the Slack bot's) whether another
 * attempt can help; `cause` keeps the adapter's error for the log.
 */
export class AnswerError extends Error {
  constructor(
    readonly code: AnswerErrorCode,
    message: string,
    readonly options: {
      readonly retryable?: boolean;
      readonly retryAfterSeconds?: number | undefined;
      readonly cause?: unknown;
    } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'AnswerError';
  }

  get retryable(): boolean {
    return this.options.retryable ?? false;
  }
}

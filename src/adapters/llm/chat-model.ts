import { SourceError, type SourceFailure } from '../source-error.js';

/** One message of a chat-completions prompt. */
export interface ChatModelMessage {
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: string;
}

/** One call's settings: the signal, and limits tighter than the configured ones (a short rewrite). */
export interface ChatModelCallOptions {
  readonly signal: AbortSignal;
  /** At most this many tokens for this reply; the configured limit still applies when lower. */
  readonly maxTokens?: number;
  /** This reply's sampling temperature, instead of the configured one. */
  readonly temperature?: number;
}

/**
 * A chat-completions model that streams its reply. Errors are `ChatModelError`s, except when
 * `signal` aborts: then the iteration rejects with the signal's reason, and the HTTP request is
 * cancelled with it.
 */
export interface ChatModel {
  /** Provider and model, e.g. `openai:gpt-4o-mini`; for logs. */
  readonly id: string;
  /** The reply's content as it arrives, delta by delta (never an empty string). */
  stream(messages: readonly ChatModelMessage[], options: ChatModelCallOptions): AsyncIterable<string>;
}

/**
 * Why a chat model failed. A `SourceError`, so the job layer (the Slack bot's answer job) retries
 * exactly what can help: 429, 5xx, refused or reset connections, time-outs.
 */
export class ChatModelError extends SourceError {
  constructor(
    failure: SourceFailure,
    message: string,
    options: { readonly status?: number; readonly retryAfterSeconds?: number; readonly cause?: unknown } = {},
  ) {
    super(failure, message, options);
    this.name = 'ChatModelError';
  }
}

import OpenAI from 'openai';
import { failureOfStatus, openAiClient, redactApiKey } from '../openai-compatible.js';
import {
  type ChatModel,
  type ChatModelCallOptions,
  ChatModelError,
  type ChatModelMessage,
} from './chat-model.js';

export interface OpenAiChatModelOptions {
  /** The API root, e.g. `https://api.openai.com/v1` or `http://localhost:11434/v1` (a bare origin gets `/v1`). */
  readonly baseUrl: string;
  /** Bearer token; Ollama, vLLM and llama.cpp usually need none. */
  readonly apiKey?: string | undefined;
  readonly model: string;
  /** Longest wait for the reply to start, and then between two pieces of it. */
  readonly timeoutMs: number;
  readonly maxTokens: number;
  readonly temperature: number;
}

/**
 * Streams replies from any OpenAI-compatible `POST /chat/completions` server (OpenAI, Azure,
 * Ollama, vLLM, llama.cpp) through the `openai` client, with no retries: a stream cannot be
 * resumed, and the caller decides whether to try again (`ChatModelError.retryable`).
 */
export class OpenAiChatModel implements ChatModel {
  readonly id: string;

  private readonly client: OpenAI;
  private readonly options: OpenAiChatModelOptions;
  private readonly apiKey: string | undefined;

  constructor(options: OpenAiChatModelOptions) {
    if (options.model.trim() === '') throw new RangeError('model must not be empty');
    this.options = options;
    this.id = `openai:${options.model}`;
    this.apiKey = options.apiKey === '' ? undefined : options.apiKey;
    this.client = openAiClient({
      baseUrl: options.baseUrl,
      apiKey: this.apiKey,
      timeoutMs: options.timeoutMs,
    });
  }

  async *stream(
    messages: readonly ChatModelMessage[],
    { signal, maxTokens, temperature }: ChatModelCallOptions,
  ): AsyncGenerator<string, void, undefined> {
    signal.throwIfAborted();
    // The client's own time-out ends at the response headers; a server that stalls mid-reply
    // is caught by this idle timer, which aborts the request the same way the caller can.
    const request = new AbortController();
    const forwardAbort = () => request.abort(signal.reason);
    signal.addEventListener('abort', forwardAbort, { once: true });
    let idle: NodeJS.Timeout | undefined;
    let timedOut = false;
    const rearm = () => {
      clearTimeout(idle);
      idle = setTimeout(() => {
        timedOut = true;
        request.abort();
      }, this.options.timeoutMs);
    };
    try {
      rearm();
      let completion: AsyncIterable<OpenAI.ChatCompletionChunk>;
      try {
        completion = await this.client.chat.completions.create(
          {
            model: this.options.model,
            messages: messages.map((message) => ({ role: message.role, content: message.content })),
            stream: true,
            // max_tokens, not max_completion_tokens: Ollama, vLLM and llama.cpp all read this one.
            max_tokens: Math.min(maxTokens ?? this.options.maxTokens, this.options.maxTokens),
            temperature: temperature ?? this.options.temperature,
          },
          { signal: request.signal },
        );
      } catch (error) {
        throw this.failure(error, signal, timedOut);
      }
      try {
        for await (const chunk of completion) {
          rearm();
          const delta = chunk.choices?.[0]?.delta?.content;
          if (typeof delta === 'string' && delta !== '') yield delta;
        }
      } catch (error) {
        throw this.failure(error, signal, timedOut);
      }
      // The client ends an aborted stream quietly, as if the reply were complete: it was not.
      if (signal.aborted) throw signal.reason;
      if (timedOut) throw this.timeout();
    } finally {
      clearTimeout(idle);
      signal.removeEventListener('abort', forwardAbort);
    }
  }

  private timeout(): ChatModelError {
    return new ChatModelError(
      'timeout',
      `the model server sent nothing for ${this.options.timeoutMs} ms (${this.id})`,
    );
  }

  private failure(error: unknown, signal: AbortSignal, timedOut: boolean): unknown {
    if (signal.aborted) return signal.reason;
    if (timedOut || error instanceof OpenAI.APIConnectionTimeoutError) return this.timeout();
    if (error instanceof OpenAI.APIConnectionError || error instanceof OpenAI.APIUserAbortError) {
      return new ChatModelError('unavailable', `the model server is unreachable (${this.id})`, {
        cause: error,
      });
    }
    if (!(error instanceof OpenAI.APIError)) {
      // A reset mid-reply surfaces as the fetch body's own error ("terminated").
      return new ChatModelError(
        'unavailable',
        `the model server's reply broke off (${this.id}): ${this.redact(String(error))}`,
      );
    }
    const status = error.status;
    // The raw APIError is not kept as the cause: its body may echo part of the API key.
    const detail = `the model server answered ${status ?? 'an error'} (${this.id}): ${this.redact(error.message)}`;
    // An error event inside a stream has no status: the server failed after it had started.
    const { failure, retryAfterSeconds } = failureOfStatus(error);
    return new ChatModelError(failure, detail, {
      ...(status === undefined ? {} : { status }),
      ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
    });
  }

  private redact(message: string): string {
    return redactApiKey(message, this.apiKey);
  }
}

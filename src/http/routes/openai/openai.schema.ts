import { Type } from 'typebox';

/** Most messages one request carries: a long conversation, well past what memory keeps. */
const MAX_MESSAGES = 1_000;

/**
 * OpenAI's chat completion request, as far as this service reads it. Other fields OpenAI's clients
 * send (`temperature`, `max_tokens`, `user`, …) are accepted and ignored: the answer comes from the
 * team's documents, written by the configured answerer.
 */
const ContentPart = Type.Object(
  { type: Type.String({ maxLength: 64 }), text: Type.Optional(Type.String()) },
  { additionalProperties: true },
);

const Message = Type.Object(
  {
    role: Type.String({ maxLength: 64, description: '`user`, `assistant`; `system` and others are ignored' }),
    content: Type.Optional(
      Type.Union([Type.String(), Type.Array(ContentPart, { maxItems: 100 }), Type.Null()], {
        description: 'the text, or content parts (only `text` parts are read)',
      }),
    ),
  },
  { additionalProperties: true },
);

export const ChatCompletionBody = Type.Object(
  {
    model: Type.String({ minLength: 1, maxLength: 256, description: '`knowledge`' }),
    messages: Type.Array(Message, {
      minItems: 1,
      maxItems: MAX_MESSAGES,
      description: 'the conversation: the last `user` message is the question',
    }),
    stream: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    stream_options: Type.Optional(
      Type.Union([
        Type.Object({ include_usage: Type.Optional(Type.Boolean()) }, { additionalProperties: true }),
        Type.Null(),
      ]),
    ),
  },
  {
    additionalProperties: true,
    examples: [
      { model: 'knowledge', messages: [{ role: 'user', content: 'How do I descale the espresso machine?' }] },
    ],
  },
);

/** Usage as OpenAI reports it: this service counts no tokens, so zeros. */
const NO_USAGE = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 } as const;

/** What every object of one completion shares. */
export interface CompletionIdentity {
  readonly id: string;
  /** Unix seconds. */
  readonly created: number;
  readonly model: string;
}

/** A non-streamed answer: `chat.completion`. */
export function chatCompletion(identity: CompletionIdentity, content: string) {
  return {
    ...identity,
    object: 'chat.completion',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content, refusal: null },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: NO_USAGE,
  };
}

/** A streamed piece: `chat.completion.chunk`. */
export function chatCompletionChunk(
  identity: CompletionIdentity,
  delta: { role?: 'assistant'; content?: string },
  finishReason: 'stop' | null = null,
) {
  return {
    ...identity,
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  };
}

/** The last chunk a client asking `stream_options.include_usage` gets: no choices, the usage. */
export function usageChunk(identity: CompletionIdentity) {
  return { ...identity, object: 'chat.completion.chunk', choices: [], usage: NO_USAGE };
}

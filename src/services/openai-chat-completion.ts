import { memberReader } from '../access.js';
import type { ConversationTurn } from '../answering/answerer.js';
import type { CitedSource } from '../answering/citations.js';
import type { Caller } from '../caller.js';
import { ServiceError, type ServiceErrorCode } from '../errors.js';
import { answerQuestion } from './answer-question.js';
import { replySourceOf } from './chatapp-reply.js';
import type { ServiceDependencies } from './dependencies.js';

/** The one model the OpenAI-compatible API offers: the team's documents, answered. */
export const OPENAI_MODEL = {
  id: 'knowledge',
  object: 'model',
  // When the model was first offered (2026-01-01): a fixed date, the same in every process.
  created: 1_767_225_600,
  owned_by: 'knowledge-answers',
} as const;

/** Longest question: as the web chat's (a question, not a document pasted whole). */
const MAX_QUESTION_CHARS = 8_000;

/** The heading of the sources list that ends every answer; earlier answers are read without it. */
const SOURCES_HEADING = 'Sources:';

/**
 * A ServiceError an OpenAI client is told about with OpenAI's `code` (`model_not_found`);
 * elsewhere it is the plain ServiceError it extends.
 */
export class OpenAiRequestError extends ServiceError {
  constructor(
    code: ServiceErrorCode,
    readonly openAiCode: string,
    message: string,
  ) {
    super(code, message);
    this.name = 'OpenAiRequestError';
  }
}

/** A content part of a message, as OpenAI's clients send them (only text parts are read). */
export interface OpenAiContentPart {
  readonly type: string;
  readonly text?: string | undefined;
}

export interface OpenAiMessage {
  readonly role: string;
  readonly content?: string | readonly OpenAiContentPart[] | null | undefined;
}

export interface OpenAiChatInput {
  readonly model: string;
  readonly messages: readonly OpenAiMessage[];
}

export interface OpenAiChat {
  /**
   * The answer's text in pieces as it is written (with its `[n]` citations), then the list of the
   * sources it cites. Throws on failure and once `signal` aborts.
   */
  pieces(signal: AbortSignal): AsyncGenerator<string, void, undefined>;
}

/**
 * A chat completion for an OpenAI client: the last user message is the question, the messages
 * before it the conversation (its last CHAT_MEMORY_MESSAGES turns), answered as the web chat
 * answers, from what the caller may open only. Nothing is saved: the client keeps the conversation.
 * Checks the request before anything is streamed: another model is a 404 (`model_not_found`), a
 * conversation without a user's question a 400.
 */
export function startOpenAiChat(
  deps: ServiceDependencies,
  caller: Caller,
  input: OpenAiChatInput,
): OpenAiChat {
  if (input.model !== OPENAI_MODEL.id) {
    throw new OpenAiRequestError(
      'not_found',
      'model_not_found',
      `The model '${input.model}' does not exist: this service offers '${OPENAI_MODEL.id}'`,
    );
  }
  const asked = lastIndexOf(input.messages, (message) => message.role === 'user');
  const question = asked === -1 ? '' : textOf(input.messages[asked]?.content).trim();
  if (question === '') {
    throw new OpenAiRequestError(
      'bad_request',
      'invalid_value',
      'The messages need a last `user` message with the question',
    );
  }
  const limit = Math.min(MAX_QUESTION_CHARS, deps.config.chats.maxMessageChars);
  if (question.length > limit) {
    throw new OpenAiRequestError(
      'bad_request',
      'string_above_max_length',
      `The question is longer than ${limit} characters`,
    );
  }
  const { memoryMessages } = deps.config.answering;
  const history = input.messages
    .slice(0, asked)
    .flatMap(toTurn)
    .slice(memoryMessages === 0 ? Number.POSITIVE_INFINITY : -memoryMessages);
  return {
    async *pieces(signal) {
      for await (const event of answerQuestion(deps, {
        reader: memberReader(caller),
        question,
        history,
        signal,
      })) {
        if (event.type === 'answer') yield event.text;
        else if (event.sources.length > 0) yield sourcesList(event.sources, deps.config.publicUrl);
      }
    },
  };
}

/**
 * `Sources:` then one `- [n] [Title](url)` line per cited source, in citation order: linked to its
 * own URL, else to its passage's page in the web app.
 */
export function sourcesList(sources: readonly CitedSource[], publicUrl: string): string {
  const lines = sources.map((source) => {
    const { title, url } = replySourceOf(source, publicUrl);
    const label = escapeLinkText(title.trim() || source.file_name || 'Untitled');
    return `- [${source.citation}] [${label}](${escapeLinkUrl(url ?? '')})`;
  });
  return `\n\n${SOURCES_HEADING}\n${lines.join('\n')}`;
}

/** A message's text: its string, or its text parts joined (images and other parts are not read). */
function textOf(content: OpenAiMessage['content']): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  return content
    .filter((part) => part.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text)
    .join('\n');
}

/**
 * A message as memory: the user's and the assistant's turns (system prompts and tool calls are
 * the client's business, not the conversation), an earlier answer without its sources list.
 */
function toTurn(message: OpenAiMessage): ConversationTurn[] {
  if (message.role !== 'user' && message.role !== 'assistant') return [];
  const text = textOf(message.content);
  const content = message.role === 'assistant' ? withoutSourcesList(text) : text;
  return content.trim() === '' ? [] : [{ role: message.role, content }];
}

function withoutSourcesList(answer: string): string {
  const at = answer.lastIndexOf(`\n\n${SOURCES_HEADING}\n`);
  return at === -1 ? answer : answer.slice(0, at);
}

function lastIndexOf<T>(items: readonly T[], test: (item: T) => boolean): number {
  for (let index = items.length - 1; index >= 0; index -= 1) {
    const item = items[index];
    if (item !== undefined && test(item)) return index;
  }
  return -1;
}

/** Brackets in a title would end the link's text early. */
function escapeLinkText(text: string): string {
  return text.replace(/[\\[\]]/g, (character) => `\\${character}`).replace(/\s+/g, ' ');
}

/** Spaces and parentheses in a URL would end the link's destination early. */
function escapeLinkUrl(url: string): string {
  return url.replace(
    /[ \t\n\v\f\r()<>]/g,
    (character) => `%${character.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
  );
}

import type { ChatModel, ChatModelMessage } from '../adapters/llm/chat-model.js';
import { SourceError } from '../adapters/source-error.js';
import { AnswerError } from './answer-error.js';
import type { Answerer, AnswerInput, Passage } from './answerer.js';
import { UnknownCitationFilter, withoutCitations } from './citations.js';

export const SYSTEM_PROMPT = [
  "You answer questions from a team's own documents.",
  "Use only the numbered sources in the user's last message, never outside knowledge.",
  'After each statement taken from a source, cite its number in square brackets, like [1] or [1][3].',
  'If the sources do not contain the answer, say plainly that it is not in your sources, and cite nothing.',
  'Answer briefly and plainly, in the language of the question.',
].join(' ');

/** Keeps one prompt within a small model's context, whatever the chunk sizes and chat length. */
const MAX_SOURCE_CHARS = 6_000;
const MAX_MEMORY_CHARS = 2_000;

/** Where the answerer reports a model's slips (a pino logger fits). */
export interface AnswererLogger {
  warn(details: object, message: string): void;
}

const silentLogger: AnswererLogger = { warn: () => undefined };

/**
 * Answers with a chat-completions model: a prompt of numbered sources, the chat so far and the
 * question; its reply streams through as it comes, less any citation number that names no source
 * (removed, and logged). A model failure becomes an `AnswerError` (pieces already yielded stay
 * valid); an abort rejects with the signal's reason.
 */
export class LlmAnswerer implements Answerer {
  readonly kind = 'llm' as const;

  constructor(
    private readonly model: ChatModel,
    private readonly logger: AnswererLogger = silentLogger,
  ) {}

  async *answer(input: AnswerInput): AsyncGenerator<string, void, undefined> {
    let answered = false;
    const citations = new UnknownCitationFilter(new Set(input.passages.map((passage) => passage.number)));
    try {
      for await (const delta of this.model.stream(promptFor(input), { signal: input.signal })) {
        if (delta.trim() !== '') answered = true;
        const text = citations.push(delta);
        if (text !== '') yield text;
      }
      const rest = citations.end();
      if (rest !== '') yield rest;
    } catch (error) {
      if (input.signal.aborted) throw input.signal.reason;
      // What was held back (trailing spaces, a citation not yet closed) was said: it is passed on.
      const rest = citations.end();
      if (rest !== '') yield rest;
      throw toAnswerError(error);
    } finally {
      if (citations.removed.length > 0) {
        this.logger.warn(
          {
            citations: citations.removed,
            sources: new Set(input.passages.map((passage) => passage.number)).size,
          },
          'the language model cited sources that do not exist; the citations were removed',
        );
      }
    }
    if (!answered) {
      throw new AnswerError('model_bad_response', 'The language model returned an empty answer.');
    }
  }
}

/** The messages sent to the model: instructions, the chat so far, then the sources and the question. */
export function promptFor(input: AnswerInput): ChatModelMessage[] {
  const memory: ChatModelMessage[] = input.history.map((turn) => ({
    role: turn.role,
    // Earlier answers' [n] point at that turn's sources, not this one's.
    content: clip(
      turn.role === 'assistant' ? withoutCitations(turn.content) : turn.content,
      MAX_MEMORY_CHARS,
    ),
  }));
  const sources = sourcesBlock(input.passages);
  // The asker's words stay the question; the rewrite says what a follow-up's "that" stood for.
  const standalone =
    input.standaloneQuestion === undefined || input.standaloneQuestion === input.question.trim()
      ? ''
      : `\n(As a standalone question: ${input.standaloneQuestion})`;
  return [
    { role: 'system', content: SYSTEM_PROMPT },
    ...memory,
    {
      role: 'user',
      content: `${sources === '' ? 'Sources: none were found.' : `Sources:\n\n${sources}`}\n\nQuestion: ${input.question}${standalone}`,
    },
  ];
}

/** `[n] title` then the text of each of its passages; passages of one document share a number. */
function sourcesBlock(passages: readonly Passage[]): string {
  const byNumber = new Map<number, { title: string; texts: string[] }>();
  for (const { number, hit } of passages) {
    const entry = byNumber.get(number) ?? { title: hit.title, texts: [] };
    entry.texts.push(hit.text.trim());
    byNumber.set(number, entry);
  }
  return [...byNumber.entries()]
    .sort(([a], [b]) => a - b)
    .map(
      ([number, entry]) => `[${number}] ${entry.title}\n${clip(entry.texts.join('\n\n'), MAX_SOURCE_CHARS)}`,
    )
    .join('\n\n');
}

function clip(text: string, maxChars: number): string {
  return text.length <= maxChars ? text : `${text.slice(0, maxChars)}\u2026`;
}

/** The adapter's failure in words for the person asking; the details stay in `cause` for the log. */
function toAnswerError(error: unknown): AnswerError {
  if (error instanceof AnswerError) return error;
  if (!(error instanceof SourceError)) {
    return new AnswerError('model_unavailable', 'The language model failed while answering.', {
      cause: error,
    });
  }
  const options = { retryable: error.retryable, retryAfterSeconds: error.retryAfterSeconds, cause: error };
  switch (error.failure) {
    case 'rate_limited':
      return new AnswerError(
        'model_rate_limited',
        'The language model is busy; try again in a moment.',
        options,
      );
    case 'timeout':
      return new AnswerError('model_timeout', 'The language model did not answer in time.', options);
    case 'unauthorized':
    case 'permission_denied':
    case 'not_found':
    case 'refused':
      return new AnswerError(
        'model_refused',
        'The language model refused the request; the service administrator should check its settings.',
        options,
      );
    case 'bad_response':
    case 'too_large':
      return new AnswerError(
        'model_bad_response',
        'The language model could not answer this request.',
        options,
      );
    default:
      return new AnswerError('model_unavailable', 'The language model is unavailable right now.', options);
  }
}

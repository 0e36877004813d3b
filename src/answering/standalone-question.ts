import type { ChatModel, ChatModelMessage } from '../adapters/llm/chat-model.js';
import type { ConversationTurn } from './answerer.js';
import { withoutCitations } from './citations.js';
import type { AnswererLogger } from './llm-answerer.js';

/**
 * Completes a turn that leans on the conversation ("And at runtime?") into a question that stands
 * alone, so that search finds what it is about.
 */
export interface QuestionRewriter {
  /**
   * The turn as a standalone question: the turn itself when it already stands alone or changes
   * topic; undefined when no rewrite could be had (the model failed or said nothing usable, or
   * there was nothing to rewrite), for the caller to fall back on. Rejects only with the
   * signal's reason once it aborts.
   */
  standalone(
    question: string,
    history: readonly ConversationTurn[],
    signal: AbortSignal,
  ): Promise<string | undefined>;
}

export const REWRITE_PROMPT = [
  "Rewrite the user's last message as a standalone question, one that can be understood without the conversation before it:",
  'replace the words that point back (it, that, there, they) with what they mean, and add the subject it continues.',
  'Keep its language, and keep names, identifiers, code and numbers verbatim.',
  'If it already stands alone, or changes the topic, return it unchanged.',
  'Do not answer it. Output only the question, on one line.',
].join(' ');

/** The last two exchanges: what a follow-up leans on is almost always just before it. */
const MEMORY_TURNS = 4;
/** An earlier turn's opening says what it was about; the rest would only cost tokens. */
const MAX_TURN_CHARS = 800;
/** A standalone question is one line; a message longer than that names its own subject. */
const MAX_QUESTION_CHARS = 500;
/** Room for a question of MAX_QUESTION_CHARS in most languages' tokens, and no room for an essay. */
const MAX_REPLY_TOKENS = 256;

/**
 * Rewrites a follow-up with a chat-completions model (temperature 0, a short reply). The earlier
 * turns go as a transcript in one message rather than as chat turns: given a chat to continue, a
 * small model tends to answer the last message instead of rewriting it. A failure or an unusable
 * reply is logged and gives undefined: the answer goes on without the rewrite.
 */
export class LlmQuestionRewriter implements QuestionRewriter {
  constructor(
    private readonly model: ChatModel,
    private readonly logger: AnswererLogger = { warn: () => undefined },
  ) {}

  async standalone(
    question: string,
    history: readonly ConversationTurn[],
    signal: AbortSignal,
  ): Promise<string | undefined> {
    signal.throwIfAborted();
    const turn = question.trim();
    const memory = history.slice(-MEMORY_TURNS).filter((entry) => entry.content.trim() !== '');
    if (turn === '' || turn.length > MAX_QUESTION_CHARS || !memory.some((entry) => entry.role === 'user')) {
      return undefined;
    }
    let reply = '';
    try {
      for await (const delta of this.model.stream(rewritePrompt(turn, memory), {
        signal,
        maxTokens: MAX_REPLY_TOKENS,
        temperature: 0,
      })) {
        reply += delta;
      }
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      this.logger.warn(
        { err: error, model: this.model.id },
        'the language model could not rewrite a follow-up; it is searched with the words of earlier questions',
      );
      return undefined;
    }
    signal.throwIfAborted();
    const rewritten = sanitizedRewrite(reply);
    if (rewritten === undefined || rewritten.length > longestRewrite(turn)) {
      this.logger.warn(
        { model: this.model.id, replyChars: reply.length },
        'the language model rewrote a follow-up into nothing usable; it is searched with the words of earlier questions',
      );
      return undefined;
    }
    return rewritten;
  }
}

/** The rewrite's messages: the instructions, then the conversation's last turns and the new one. */
export function rewritePrompt(question: string, history: readonly ConversationTurn[]): ChatModelMessage[] {
  const transcript = history.map((turn) =>
    turn.role === 'user'
      ? `User: ${oneParagraph(turn.content)}`
      : // An earlier answer's [n] point at that turn's sources: noise to a rewrite.
        `Assistant: ${oneParagraph(withoutCitations(turn.content))}`,
  );
  return [
    { role: 'system', content: REWRITE_PROMPT },
    {
      role: 'user',
      content: `Conversation:\n${transcript.join('\n')}\n\nLast message: ${oneParagraph(question)}`,
    },
  ];
}

/**
 * The question in a model's reply: its first line that is not a label ("Here it is:"), less a
 * "Question:" label and the quotes around it; undefined when nothing is left.
 */
export function sanitizedRewrite(reply: string): string | undefined {
  const line = reply
    .split('\n')
    .map((text) => text.trim())
    .find((text) => text !== '' && !text.endsWith(':'));
  if (line === undefined) return undefined;
  const text = withoutLabel(withoutQuotes(withoutLabel(line))).trim();
  return text === '' ? undefined : text;
}

/** Longer than this, a reply is no rewrite of the turn (an answer, an essay): it is not used. */
function longestRewrite(question: string): number {
  return Math.min(MAX_QUESTION_CHARS, 200 + 3 * question.length);
}

const LABEL = /^(?:(?:standalone|rewritten)[ \t]+)?question[ \t]*:[ \t]*/i;

function withoutLabel(text: string): string {
  return text.replace(LABEL, '');
}

const QUOTE_PAIRS: Readonly<Record<string, string>> = {
  '"': '"',
  "'": "'",
  '\u201c': '\u201d',
  '\u2018': '\u2019',
  '\u201e': '\u201c',
  '\u00ab': '\u00bb',
};

/** The text inside quotes around all of it; `"a" or "b"` is left as it is. */
function withoutQuotes(text: string): string {
  const open = text.charAt(0);
  const close = QUOTE_PAIRS[open];
  if (close === undefined || text.length < 2 || !text.endsWith(close)) return text;
  const inner = text.slice(1, -1);
  return inner.includes(open) || inner.includes(close) ? text : inner.trim();
}

/** A turn on one line, clipped: the transcript's lines stay one per turn. */
function oneParagraph(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= MAX_TURN_CHARS ? flat : `${flat.slice(0, MAX_TURN_CHARS)}\u2026`;
}

import { randomUUID } from 'node:crypto';
import { memberReader } from '../access.js';
import type { ConversationTurn } from '../answering/answerer.js';
import type { CitedSource } from '../answering/citations.js';
import type { Caller } from '../caller.js';
import type { StoredChatMessage } from '../db/repositories/chats.js';
import { type AnswerEvent, answerQuestion } from './answer-question.js';
import { titleFrom } from './chat-titles.js';
import type { ServiceDependencies } from './dependencies.js';
import { assertOwnUserContext, type UserContextClaim } from './user-context.js';

/** A question from the web chat (spec 4.5). */
export interface WebChatInput {
  /** The asker's role as stored in the chat history; `user` when absent. */
  readonly role?: string | null | undefined;
  readonly content: string;
  /** Optional: the caller is known from the token; when sent it must be the caller's. */
  readonly user_context?: UserContextClaim | null | undefined;
  readonly timestamp?: string | null | undefined;
  /** The conversation to continue; a new one when absent. */
  readonly chat_id?: string | null | undefined;
}

/**
 * The answer's pieces and sources, then `done` once the turn is in the chat's history, with the
 * answer's position in the chat's messages (to rate it).
 */
export type WebChatEvent =
  | AnswerEvent
  | { readonly type: 'done'; readonly chatId: string; readonly messageIndex: number };

export interface WebChat {
  readonly chatId: string;
  /**
   * Answers, then appends the question and the answer (with its sources) to the chat, then says
   * `done`. Throws on failure and when `signal` aborts; nothing is saved then.
   */
  events(signal: AbortSignal): AsyncGenerator<WebChatEvent, void, undefined>;
}

/**
 * Checks a web chat question before anything is streamed: a `user_context`, when sent, that is
 * not the caller's is refused (403) and nothing else happens. Memory is the chat's last messages, read
 * by the caller's user id and the chat id together, so it never crosses users or chats.
 */
export async function startWebChat(
  deps: ServiceDependencies,
  caller: Caller,
  input: WebChatInput,
): Promise<WebChat> {
  if (input.user_context !== undefined && input.user_context !== null) {
    await assertOwnUserContext(deps, caller, input.user_context);
  }
  const chatId =
    input.chat_id === undefined || input.chat_id === null || input.chat_id === ''
      ? randomUUID()
      : input.chat_id;
  const { memoryMessages } = deps.config.answering;
  return {
    chatId,
    async *events(signal) {
      const stored = await deps.data.chats.recentChatMessages(caller.userId, chatId, memoryMessages);
      const history = stored.map(toTurn);
      let answer = '';
      let sources: readonly CitedSource[] = [];
      for await (const event of answerQuestion(deps, {
        reader: memberReader(caller),
        question: input.content,
        history,
        signal,
      })) {
        if (event.type === 'answer') answer += event.text;
        else sources = event.sources;
        yield event;
      }
      signal.throwIfAborted();
      const askedAt = input.timestamp ?? deps.now().toISOString();
      const question: StoredChatMessage = {
        role: input.role || 'user',
        content: input.content,
        timestamp: askedAt,
        chat_id: chatId,
      };
      const appended = await deps.data.chats.appendChatMessages({
        userId: caller.userId,
        chatId,
        title: titleFrom([question]),
        messages: [
          question,
          {
            role: 'assistant',
            content: answer,
            timestamp: deps.now().toISOString(),
            chat_id: chatId,
            sources: [...sources],
          },
        ],
        maxMessages: deps.config.chats.maxMessages,
      });
      // The answer is the last message the append left in the chat.
      yield { type: 'done', chatId, messageIndex: appended.messageCount - 1 };
    },
  };
}

/** A stored message as memory: the assistant's own answers, and everything else as the user's. */
function toTurn(message: StoredChatMessage): ConversationTurn {
  return {
    role: message.role === 'assistant' ? 'assistant' : 'user',
    content: String(message.content ?? ''),
  };
}

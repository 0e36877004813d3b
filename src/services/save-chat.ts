import type { Caller } from '../caller.js';
import type { StoredChatMessage } from '../db/repositories/chats.js';
import { ServiceError } from '../errors.js';
import { titleFrom } from './chat-titles.js';
import { chatView } from './chat-views.js';
import type { ServiceDependencies } from './dependencies.js';

export interface ChatMessageInput {
  role: string;
  content: string;
  timestamp?: string | null;
  chat_id?: string | null;
}

export interface SaveChatInput {
  chat_id: string;
  messages: ChatMessageInput[];
}

/** Creates the caller's chat or replaces its messages. */
export async function saveChat(
  deps: ServiceDependencies,
  caller: Caller,
  pathChatId: string,
  input: SaveChatInput,
): Promise<{ created: boolean; chat: ReturnType<typeof chatView> }> {
  if (input.chat_id !== pathChatId) {
    throw ServiceError.validation([
      {
        type: 'value_error',
        loc: ['body', 'chat_id'],
        msg: 'Value error, chat_id must equal the chat_id in the path',
        input: input.chat_id,
      },
    ]);
  }
  const { maxMessages, maxMessageChars } = deps.config.chats;
  if (input.messages.length > maxMessages) {
    throw new ServiceError('payload_too_large', `A chat holds at most ${maxMessages} messages`);
  }
  if (input.messages.some((message) => message.content.length > maxMessageChars)) {
    throw new ServiceError('payload_too_large', `A chat message holds at most ${maxMessageChars} characters`);
  }
  // Only the fields of a chat message are kept; unknown extra fields are ignored, as FastAPI does.
  const messages: StoredChatMessage[] = input.messages.map((message) => ({
    role: message.role,
    content: message.content,
    timestamp: message.timestamp ?? null,
    chat_id: message.chat_id ?? null,
  }));
  const saved = await deps.chatWrites.submit({
    userId: caller.userId,
    chatId: pathChatId,
    title: titleFrom(messages),
    messages,
  });
  return {
    created: saved.created,
    chat: chatView({
      id: saved.id,
      chatId: pathChatId,
      userId: caller.userId,
      title: saved.title,
      // As stored: with the ratings the save kept (an answer left in place keeps its own).
      messages: messages.map((message, index) => {
        const feedback = saved.feedback.get(index);
        return feedback === undefined ? message : { ...message, feedback };
      }),
      createdAt: saved.createdAt,
      updatedAt: saved.updatedAt,
    }),
  };
}

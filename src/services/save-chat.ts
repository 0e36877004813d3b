import type { Caller } from '../caller.js';
import type { StoredChatMessage } from '../db/schema.js';
import { ServiceError } from '../errors.js';
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

const TITLE_LENGTH = 80;

/** A chat's title: its first message, on one line, cut at a word near 80 characters. */
export function titleFrom(messages: readonly ChatMessageInput[]): string {
  const text = (messages[0]?.content ?? '').replace(/\s+/g, ' ').trim();
  if (text.length <= TITLE_LENGTH) return text;
  const cut = text.slice(0, TITLE_LENGTH);
  const lastSpace = cut.lastIndexOf(' ');
  return `${(lastSpace > TITLE_LENGTH / 2 ? cut.slice(0, lastSpace) : cut).trimEnd()}…`;
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

import { Type } from 'typebox';
import { Nullable } from '../../schema-types.js';
import { CitedSourceView } from '../chat/chat.schema.js';

export const ChatParams = Type.Object({ chat_id: Type.String({ minLength: 1, maxLength: 256 }) });

/** A chat message (spec 2.5). */
export const ChatMessage = Type.Object({
  role: Type.String({ maxLength: 64 }),
  content: Type.String(),
  timestamp: Nullable.String({ maxLength: 64 }),
  chat_id: Nullable.String({ maxLength: 256 }),
});

/** A chat as sent on save (spec 2.6). */
export const SaveChatBody = Type.Object({
  chat_id: Type.String({ maxLength: 256 }),
  messages: Type.Array(ChatMessage),
});

export const StoredChat = Type.Object({
  id: Type.Integer(),
  chat_id: Type.String(),
  title: Type.String(),
  messages: Type.Array(
    Type.Object({
      role: Type.String(),
      content: Type.String(),
      timestamp: Type.Union([Type.String(), Type.Null()]),
      chat_id: Type.Union([Type.String(), Type.Null()]),
      sources: Type.Optional(
        Type.Array(CitedSourceView, {
          description: 'on answers from POST /v1/chat/: the documents they cite',
        }),
      ),
    }),
  ),
  user_id: Type.Integer(),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

export const ChatSummary = Type.Object({
  id: Type.Integer(),
  chat_id: Type.String(),
  title: Type.String(),
  updated_at: Type.String({ format: 'date-time' }),
});

export const ListChatsQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 30 }),
  offset: Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 0 }),
});

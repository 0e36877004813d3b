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
      feedback: Type.Optional(
        Type.Unsafe<'up' | 'down'>({
          type: 'string',
          enum: ['up', 'down'],
          description:
            "on a rated answer: its asker's thumbs up or down (PUT /v1/chats/{chat_id}/messages/{message_index}/feedback); absent when unrated",
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

/** The largest message index the path takes (PostgreSQL's integer); a chat holds far fewer. */
const MAX_MESSAGE_INDEX = 2_147_483_647;

export const MessageParams = Type.Object({
  chat_id: Type.String({ minLength: 1, maxLength: 256 }),
  message_index: Type.Integer({
    minimum: 0,
    maximum: MAX_MESSAGE_INDEX,
    description: "the message's position in the chat's `messages`, from 0",
  }),
});

const RATING_DESCRIPTION = '`up` or `down`; null clears the rating';

export const AnswerFeedbackBody = Type.Object(
  {
    rating: Type.Unsafe<'up' | 'down' | null>({
      type: ['string', 'null'],
      enum: ['up', 'down', null],
      description: RATING_DESCRIPTION,
    }),
  },
  { examples: [{ rating: 'up' }] },
);

export const AnswerFeedbackView = Type.Object({
  chat_id: Type.String(),
  message_index: Type.Integer(),
  rating: Type.Unsafe<'up' | 'down' | null>({
    type: ['string', 'null'],
    enum: ['up', 'down', null],
    description: 'the rating now stored (null: none)',
  }),
});

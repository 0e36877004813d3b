import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { deleteChat } from '../../../services/delete-chat.js';
import { getChat } from '../../../services/get-chat.js';
import { listChats } from '../../../services/list-chats.js';
import { rateAnswer } from '../../../services/rate-answer.js';
import { saveChat } from '../../../services/save-chat.js';
import type { AppOptions } from '../../app-options.js';
import { callerOf } from '../../auth.js';
import { bearerSecurity, ErrorDetail, withErrors } from '../../schema-types.js';
import {
  AnswerFeedbackBody,
  AnswerFeedbackView,
  ChatParams,
  ChatSummary,
  ListChatsQuery,
  MessageParams,
  SaveChatBody,
  StoredChat,
} from './chats.schema.js';

export const chatRoutes: FastifyPluginAsyncTypebox<AppOptions> = async (app, { deps }) => {
  app.put(
    '/v1/chats/:chat_id',
    {
      schema: {
        tags: ['chat'],
        summary: "Create the caller's chat (201) or replace its messages (200)",
        description: `The body's chat_id must equal the path's. Limits: ${deps.config.chats.maxMessages} messages a chat, ${deps.config.chats.maxMessageChars} characters a message (413 beyond). An answer the save leaves in place (same position, role and content) keeps its rating (\`feedback\`).`,
        security: bearerSecurity,
        params: ChatParams,
        body: SaveChatBody,
        response: withErrors({ 200: StoredChat, 201: StoredChat, 413: ErrorDetail }),
      },
    },
    async (request, reply) => {
      const result = await saveChat(deps, callerOf(request), request.params.chat_id, request.body);
      return reply.code(result.created ? 201 : 200).send(result.chat);
    },
  );

  app.get(
    '/v1/chats/',
    {
      schema: {
        tags: ['chat'],
        summary: "The caller's chats, most recently updated first",
        description:
          'Paginated with `limit` (1–100, default 30) and `offset`; the total is in `X-Total-Count`.',
        security: bearerSecurity,
        querystring: ListChatsQuery,
        response: withErrors({ 200: Type.Array(ChatSummary) }),
      },
    },
    async (request, reply) => {
      const page = await listChats(deps, callerOf(request), request.query);
      return reply.header('x-total-count', String(page.total)).send(page.chats);
    },
  );

  app.get(
    '/v1/chats/:chat_id',
    {
      schema: {
        tags: ['chat'],
        summary: 'One of the caller\'s chats (404 "Chat not found" otherwise)',
        security: bearerSecurity,
        params: ChatParams,
        response: withErrors({ 200: StoredChat, 404: ErrorDetail }),
      },
    },
    async (request) => getChat(deps, callerOf(request), request.params.chat_id),
  );

  app.put(
    '/v1/chats/:chat_id/messages/:message_index/feedback',
    {
      schema: {
        tags: ['chat'],
        summary: "Rate one answer of the caller's chat: thumbs up, down, or null to clear",
        description: [
          'Stored with the message: GET /v1/chats/{chat_id} then shows `"feedback": "up"|"down"` on it.',
          "`message_index` is its position in the chat's `messages`, from 0 (the web chat's `done` line",
          'gives it for a new answer). Only an answer (role `assistant`) can be rated: another message, or',
          'an index past the end, is a 422 at `["path","message_index"]`. Another user\'s chat is a 404.',
          "A later save of the chat (PUT /v1/chats/{chat_id}) keeps a rating while the answer's position,",
          'role and content stay.',
        ].join(' '),
        security: bearerSecurity,
        params: MessageParams,
        body: AnswerFeedbackBody,
        response: withErrors({ 200: AnswerFeedbackView, 404: ErrorDetail }),
      },
    },
    async (request) =>
      rateAnswer(
        deps,
        callerOf(request),
        request.params.chat_id,
        request.params.message_index,
        request.body.rating,
      ),
  );

  app.delete(
    '/v1/chats/:chat_id',
    {
      schema: {
        tags: ['chat'],
        summary: "Delete one of the caller's chats",
        security: bearerSecurity,
        params: ChatParams,
        response: withErrors({ 204: Type.Null(), 404: ErrorDetail }),
      },
    },
    async (request, reply) => {
      await deleteChat(deps, callerOf(request), request.params.chat_id);
      return reply.code(204).send(null);
    },
  );
};

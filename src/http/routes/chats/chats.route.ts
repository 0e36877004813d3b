import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { deleteChat } from '../../../services/delete-chat.js';
import { getChat } from '../../../services/get-chat.js';
import { listChats } from '../../../services/list-chats.js';
import { saveChat } from '../../../services/save-chat.js';
import type { AppOptions } from '../../app.js';
import { callerOf } from '../../auth.js';
import { bearerSecurity, ErrorDetail, withErrors } from '../../schema-types.js';
import { ChatParams, ChatSummary, ListChatsQuery, SaveChatBody, StoredChat } from './chats.schema.js';

export const chatRoutes: FastifyPluginAsyncTypebox<AppOptions> = async (app, { deps }) => {
  app.put(
    '/v1/chats/:chat_id',
    {
      schema: {
        tags: ['chat'],
        summary: "Create the caller's chat (201) or replace its messages (200)",
        description: `The body's chat_id must equal the path's. Limits: ${deps.config.chats.maxMessages} messages a chat, ${deps.config.chats.maxMessageChars} characters a message (413 beyond).`,
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

import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { startWebChat } from '../../../services/answer-web-chat.js';
import type { AppOptions } from '../../app-options.js';
import { callerOf } from '../../auth.js';
import { bearerSecurity, ErrorDetail, withErrors } from '../../schema-types.js';
import { MAX_QUESTION_CHARS, WebChatLine, webChatBody } from './chat.schema.js';
import { CONTENT_TYPES, chatStream, streamFormatFor } from './chat-stream.js';

export const webChatRoutes: FastifyPluginAsyncTypebox<AppOptions> = async (app, { deps }) => {
  app.post(
    '/v1/chat/',
    {
      schema: {
        tags: ['question_and_answering'],
        summary: "Answer a question from the caller's team's documents, streamed",
        description: [
          'Only `content` is required: `{"content": "<question>"}` asks as the signed-in caller (`role`',
          "defaults to `user`). A `user_context`, which spec clients send, must be the caller's own (403",
          'otherwise). An empty `content` is a 422. The answer streams as NDJSON',
          '(`application/x-ndjson`): `{"answer": "<piece>"}` lines, one `{"sources": [...]}` line (only',
          'the documents the answer cites, by their `[n]`), then `{"done": true, "chat_id": "…", "message_index": n}`',
          "(the answer's position in the chat's messages, to rate it); a",
          'failure ends it with `{"error": {"code", "message"}}`. With `Accept: text/event-stream` the',
          'same objects come as server-sent events `answer-delta`, `sources`, `done` and `error`. Without',
          '`chat_id` a new chat starts; the question and the answer are added to the chat history',
          `(GET /v1/chats/{chat_id}), and its last ${deps.config.answering.memoryMessages} messages are the conversation's memory.`,
        ].join(' '),
        security: bearerSecurity,
        body: webChatBody(Math.min(MAX_QUESTION_CHARS, deps.config.chats.maxMessageChars)),
        response: withErrors({
          200: {
            description: 'The answer, streamed',
            content: {
              'application/x-ndjson': { schema: WebChatLine },
              'text/event-stream': { schema: WebChatLine },
            },
          },
          403: ErrorDetail,
        }),
      },
    },
    async (request, reply) => {
      // Refusals (403) come before the stream, as ordinary error responses.
      const chat = await startWebChat(deps, callerOf(request), request.body);
      const format = streamFormatFor(request.headers.accept);
      const response = reply.raw;
      const abort = new AbortController();
      // The response closing before it finished means the client left: stop the search and the LLM.
      response.once('close', () => {
        if (!response.writableFinished) abort.abort(new Error('the client closed the connection'));
      });
      async function* body() {
        // fastify has set the headers by the time the stream is read: send them before searching.
        if (!response.headersSent) response.flushHeaders();
        yield* chatStream(chat, format, abort.signal, request.log);
      }
      // The 200 schemas above document the lines; the body itself is a stream, not a serialized object.
      const streaming: FastifyReply = reply;
      return (
        streaming
          .header('content-type', CONTENT_TYPES[format])
          .header('cache-control', 'no-cache, no-transform')
          // Proxies such as nginx would otherwise hold the pieces back.
          .header('x-accel-buffering', 'no')
          .send(Readable.from(body()))
      );
    },
  );
};

import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import { ServiceError } from '../../../errors.js';
import { OPENAI_MODEL, type OpenAiChat, startOpenAiChat } from '../../../services/openai-chat-completion.js';
import type { AppOptions } from '../../app-options.js';
import { bearerTokenOf, callerOf, refuseMcpOnlyToken } from '../../auth.js';
import {
  ChatCompletionBody,
  type CompletionIdentity,
  chatCompletion,
  chatCompletionChunk,
  usageChunk,
} from './openai.schema.js';
import {
  describeOpenAiFailure,
  handleOpenAiError,
  openAiFailure,
  sendOpenAiFailure,
} from './openai-errors.js';

/** The OpenAI-compatible API at /openai/v1: a plugin of its own, so its errors have OpenAI's shape. */
export const openAiRoutes: FastifyPluginAsyncTypebox<AppOptions> = async (app, options) => {
  await app.register(openAiV1Routes, { ...options, prefix: '/openai/v1' });
};

const openAiSecurity = [{ bearerAuth: [] }];

const openAiV1Routes: FastifyPluginAsyncTypebox<AppOptions> = async (app, { deps }) => {
  app.setErrorHandler(handleOpenAiError);
  app.setNotFoundHandler((request, reply) =>
    sendOpenAiFailure(
      reply,
      openAiFailure(404, `No route at ${request.method} ${request.url.split('?', 1)[0]}`, 'unknown_url'),
    ),
  );
  // Public to the app's session check (http/auth.ts), whose 401 is not OpenAI's: the key is checked
  // here, from the bearer header only (OpenAI's clients send no cookies).
  app.addHook('onRequest', async (request) => {
    if (request.is404) return;
    const token = bearerTokenOf(request);
    if (token === undefined) {
      throw new ServiceError(
        'unauthenticated',
        'Missing API key: send `Authorization: Bearer <token>` with a personal access token',
      );
    }
    const caller = await deps.callers.find(token);
    if (caller === undefined) throw new ServiceError('unauthenticated', 'Incorrect API key provided');
    refuseMcpOnlyToken(caller);
    request.caller = caller;
  });
  const config = { public: true };

  app.get(
    '/models',
    {
      config,
      schema: {
        tags: ['openai'],
        summary: 'The models an OpenAI client may name: `knowledge`',
        security: openAiSecurity,
      },
    },
    async () => ({ object: 'list', data: [OPENAI_MODEL] }),
  );

  app.get<{ Params: { model: string } }>(
    '/models/:model',
    { config, schema: { tags: ['openai'], summary: 'One model', security: openAiSecurity } },
    async (request, reply) =>
      request.params.model === OPENAI_MODEL.id
        ? OPENAI_MODEL
        : sendOpenAiFailure(
            reply,
            openAiFailure(404, `The model '${request.params.model}' does not exist`, 'model_not_found'),
          ),
  );

  app.post(
    '/chat/completions',
    {
      config,
      schema: {
        tags: ['openai'],
        summary: "An answer from the caller's documents, as an OpenAI chat completion",
        description: [
          'OpenAI\'s chat completions with `model: "knowledge"`: the last `user` message is the question,',
          'the messages before it the conversation. The content is the answer with its `[n]` citations,',
          'then `Sources:` with one `- [n] [Title](url)` line per cited source (its URL, else its passage in',
          'the web app). With `stream: true`, `chat.completion.chunk` server-sent events as it is written,',
          'then `data: [DONE]`. The API key is any bearer token of the person (a personal access token).',
          'Errors have OpenAI\'s shape `{"error": {"message", "type", "code"}}`. Nothing is saved.',
        ].join(' '),
        security: openAiSecurity,
        body: ChatCompletionBody,
      },
    },
    async (request, reply) => {
      // Refusals (404 for another model, 400) come before the stream, as ordinary error responses.
      const chat = startOpenAiChat(deps, callerOf(request), request.body);
      const identity: CompletionIdentity = {
        id: `chatcmpl-${randomUUID()}`,
        created: Math.floor(deps.now().getTime() / 1000),
        model: OPENAI_MODEL.id,
      };
      const response = reply.raw;
      const signal = abortedOnClose(response);
      if (request.body.stream !== true) {
        let content = '';
        try {
          for await (const piece of chat.pieces(signal)) content += piece;
        } catch (error) {
          if (!signal.aborted) throw error;
          request.log.info('client went away: answer stopped');
          return reply.code(499).send();
        }
        return chatCompletion(identity, content);
      }
      const includeUsage = request.body.stream_options?.include_usage === true;
      async function* body() {
        // fastify has set the headers by the time the stream is read: send them before searching.
        if (!response.headersSent) response.flushHeaders();
        yield* completionEvents(chat, identity, { includeUsage, signal, log: request.log });
      }
      // The body is a stream of events, not a serialized object.
      const streaming: FastifyReply = reply;
      return (
        streaming
          .header('content-type', 'text/event-stream')
          .header('cache-control', 'no-cache, no-transform')
          // Proxies such as nginx would otherwise hold the pieces back.
          .header('x-accel-buffering', 'no')
          .send(Readable.from(body()))
      );
    },
  );
};

/** Aborted when the response closes before it finished: the client left, so the search and the LLM stop. */
function abortedOnClose(response: ServerResponse): AbortSignal {
  const abort = new AbortController();
  response.once('close', () => {
    if (!response.writableFinished) abort.abort(new Error('the client closed the connection'));
  });
  return abort.signal;
}

/**
 * The streamed answer as OpenAI's server-sent events: a first chunk with the role, one per piece of
 * content, a last one with `finish_reason: "stop"`, then `[DONE]`. A failure after the headers went
 * out becomes an `{"error": …}` event (OpenAI's clients throw it); a client that went away gets nothing.
 */
async function* completionEvents(
  chat: OpenAiChat,
  identity: CompletionIdentity,
  options: { readonly includeUsage: boolean; readonly signal: AbortSignal; readonly log: FastifyBaseLogger },
): AsyncGenerator<string, void, undefined> {
  const { signal, log } = options;
  try {
    yield event(chatCompletionChunk(identity, { role: 'assistant', content: '' }));
    for await (const piece of chat.pieces(signal))
      yield event(chatCompletionChunk(identity, { content: piece }));
    yield event(chatCompletionChunk(identity, {}, 'stop'));
    if (options.includeUsage) yield event(usageChunk(identity));
    yield 'data: [DONE]\n\n';
  } catch (error) {
    if (signal.aborted) {
      log.info('client went away: answer stopped');
      return;
    }
    yield event(describeOpenAiFailure(error, log).body);
  }
}

function event(data: unknown): string {
  // JSON.stringify escapes line breaks, so one `data:` line carries the whole object.
  return `data: ${JSON.stringify(data)}\n\n`;
}

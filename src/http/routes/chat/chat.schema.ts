import { Type } from 'typebox';
import { Nullable } from '../../schema-types.js';
import { UserContextBody } from '../shared-schemas.js';

/** Longest question: a question, not a document pasted whole (and a bounded search query). */
export const MAX_QUESTION_CHARS = 8_000;

/**
 * A web chat question (spec 4.5). Only `content` is needed: the caller is known from the token.
 * Spec clients still send `role` and `user_context`; a `user_context` is checked against the caller.
 */
export function webChatBody(maxQuestionChars: number) {
  return Type.Object(
    {
      role: Nullable.String({ maxLength: 64, description: "the asker's role in the chat; default `user`" }),
      content: Type.String({ minLength: 1, maxLength: maxQuestionChars, description: 'the question' }),
      user_context: Type.Optional(
        Type.Union([UserContextBody, Type.Null()], {
          description: "optional; when sent, it must be the caller's own (GET /v1/users/me), else 403",
        }),
      ),
      timestamp: Nullable.String({ maxLength: 64 }),
      chat_id: Nullable.String({
        maxLength: 256,
        description: 'the chat to continue; a new one when absent',
      }),
    },
    // The example /docs fills in: it works as it is for whoever is signed in.
    { examples: [{ content: 'How do I descale the espresso machine?' }] },
  );
}

/** A document an answer cites (the `sources` line; also kept on answers in the chat history). */
export const CitedSourceView = Type.Object({
  file_name: Type.String({
    description:
      'the name its file was uploaded under, else (JSON documents, Drive files, wiki pages; answers stored before) its title',
    examples: ['pino-api.md'],
  }),
  file_path: Type.String({ description: "the document's URL, else `<source>/<external_id>`" }),
  mimetype: Type.Union([Type.String(), Type.Null()]),
  creation_date: Type.String({ format: 'date' }),
  last_modified_date: Type.String({ format: 'date' }),
  page_labels: Type.Array(Type.String()),
  title: Type.String({ description: "the document's title, shown beside `file_name`", examples: ['API'] }),
  url: Type.Union([Type.String(), Type.Null()]),
  snippet: Type.String(),
  citation: Type.Integer({ description: 'the number the answer cites it by: `[n]`' }),
  // Optional: answers stored before it was added lack it.
  document_id: Type.Optional(
    Type.Integer({
      description: 'the document, at GET /v1/documents/{document_id} (absent on older answers)',
    }),
  ),
  chunk_id: Type.Optional(
    Type.Integer({
      description:
        "the cited passage: the `chunk_id` of one of the document's chunks (GET /v1/documents/{document_id}); absent on older answers",
    }),
  ),
});

/** One line of the stream (NDJSON), or the data of one event (SSE). */
export const WebChatLine = Type.Union([
  Type.Object({ answer: Type.String() }, { description: 'a piece of the answer (SSE event `answer-delta`)' }),
  Type.Object(
    { sources: Type.Array(CitedSourceView) },
    { description: 'the cited documents (event `sources`)' },
  ),
  Type.Object(
    {
      done: Type.Literal(true),
      chat_id: Type.String(),
      message_index: Type.Integer({
        description:
          "the answer's position in the chat's messages, to rate it (PUT /v1/chats/{chat_id}/messages/{message_index}/feedback)",
      }),
    },
    { description: 'the end; the turn is in the chat history (event `done`)' },
  ),
  Type.Object(
    { error: Type.Object({ code: Type.String(), message: Type.String() }) },
    { description: 'the answer failed; nothing follows (event `error`)' },
  ),
]);

import type { FastifyBaseLogger } from 'fastify';
import { AnswerError } from '../../../answering/answer-error.js';
import { DATABASE_UNAVAILABLE_MESSAGE, isDatabaseUnavailable } from '../../../db/database-availability.js';
import { ServiceError } from '../../../errors.js';
import type { WebChat, WebChatEvent } from '../../../services/answer-web-chat.js';
import { describeForLog } from '../../errors.js';

export type StreamFormat = 'ndjson' | 'sse';

/** Bare media types, as the issue names them: both formats are UTF-8 by definition. */
export const CONTENT_TYPES: Readonly<Record<StreamFormat, string>> = {
  ndjson: 'application/x-ndjson',
  sse: 'text/event-stream',
};

/** Server-sent events when the client asks for them; otherwise NDJSON, as the original's clients read. */
export function streamFormatFor(accept: string | undefined): StreamFormat {
  return accept?.toLowerCase().includes('text/event-stream') ? 'sse' : 'ndjson';
}

type WireEvent =
  | { readonly name: 'answer-delta'; readonly data: { answer: string } }
  | { readonly name: 'sources'; readonly data: { sources: unknown } }
  | { readonly name: 'done'; readonly data: { done: true; chat_id: string; message_index: number } }
  | { readonly name: 'error'; readonly data: { error: { code: string; message: string } } };

/**
 * The web chat's body: its events as NDJSON lines or server-sent events. A failure after the
 * headers went out becomes a last `error` event (the status is already 200); a client that went
 * away gets nothing more.
 */
export async function* chatStream(
  chat: WebChat,
  format: StreamFormat,
  signal: AbortSignal,
  log: FastifyBaseLogger,
): AsyncGenerator<string, void, undefined> {
  try {
    for await (const event of chat.events(signal)) yield encode(format, toWire(event));
  } catch (error) {
    if (signal.aborted) {
      log.info('client went away: answer stopped');
      return;
    }
    yield encode(format, { name: 'error', data: { error: describeFailure(error, log) } });
  }
}

function toWire(event: WebChatEvent): WireEvent {
  switch (event.type) {
    case 'answer':
      return { name: 'answer-delta', data: { answer: event.text } };
    case 'sources':
      return { name: 'sources', data: { sources: event.sources } };
    case 'done':
      return { name: 'done', data: { done: true, chat_id: event.chatId, message_index: event.messageIndex } };
  }
}

function encode(format: StreamFormat, event: WireEvent): string {
  const json = JSON.stringify(event.data);
  // JSON.stringify escapes line breaks, so one `data:` line carries the whole object.
  return format === 'sse' ? `event: ${event.name}\ndata: ${json}\n\n` : `${json}\n`;
}

/** What the client is told; the log gets the details (never the model server's words to the client). */
function describeFailure(error: unknown, log: FastifyBaseLogger): { code: string; message: string } {
  if (error instanceof AnswerError) {
    log.warn({ code: error.code, failure: describeForLog(error.cause) }, 'answer failed');
    return { code: error.code, message: error.message };
  }
  if (isDatabaseUnavailable(error)) return { code: 'unavailable', message: DATABASE_UNAVAILABLE_MESSAGE };
  if (error instanceof ServiceError) {
    log.warn({ code: error.code, detail: error.message }, 'answer failed');
    return { code: error.code, message: error.message };
  }
  log.error({ failure: describeForLog(error) }, 'answer failed');
  return { code: 'internal_error', message: 'The answer failed; try again.' };
}

import { type ChatEvent, toChatEvent } from './chat-events';
import { send } from './http';
import { readNdjson } from './ndjson';

/** The longest question the service takes (chat.schema.ts MAX_QUESTION_CHARS). */
export const MAX_QUESTION_CHARS = 8000;

export interface Question {
  content: string;
  /** The chat to continue; absent: a new chat. */
  chatId?: string;
}

/**
 * POST /v1/chat/ as NDJSON: the answer's pieces, its sources, then the end (with the chat's id) or
 * an error. Aborting the signal closes the connection, and the service stops its work.
 */
export async function* askQuestion(question: Question, signal: AbortSignal): AsyncGenerator<ChatEvent> {
  const body: Record<string, string> = { content: question.content };
  if (question.chatId !== undefined) body.chat_id = question.chatId;
  const response = await send('POST', '/v1/chat/', {
    body,
    headers: { accept: 'application/x-ndjson' },
    signal,
  });
  if (response.body === null) return;
  for await (const line of readNdjson(response.body)) {
    const event = toChatEvent(line);
    if (event !== undefined) yield event;
  }
}

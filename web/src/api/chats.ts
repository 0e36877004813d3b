import { requestJson, requestNothing } from './http';
import type { AnswerFeedback, AnswerRating, ChatSummary, StoredChat } from './types';

/** GET /v1/chats/: the caller's chats, most recently updated first. */
export function listChats(signal?: AbortSignal): Promise<ChatSummary[]> {
  return requestJson<ChatSummary[]>('GET', '/v1/chats/', {
    query: { limit: 100 },
    ...(signal === undefined ? {} : { signal }),
  });
}

/** GET /v1/chats/{chat_id}: one chat with its messages (answers with their sources). */
export function getChat(chatId: string, signal?: AbortSignal): Promise<StoredChat> {
  return requestJson<StoredChat>('GET', `/v1/chats/${encodeURIComponent(chatId)}`, {
    ...(signal === undefined ? {} : { signal }),
  });
}

/** DELETE /v1/chats/{chat_id}. */
export function deleteChat(chatId: string): Promise<void> {
  return requestNothing('DELETE', `/v1/chats/${encodeURIComponent(chatId)}`);
}

/**
 * PUT /v1/chats/{chat_id}/messages/{message_index}/feedback: rates an answer (the message at that
 * position) up or down; null clears the rating.
 */
export function rateAnswer(
  chatId: string,
  messageIndex: number,
  rating: AnswerRating | null,
): Promise<AnswerFeedback> {
  return requestJson<AnswerFeedback>(
    'PUT',
    `/v1/chats/${encodeURIComponent(chatId)}/messages/${messageIndex}/feedback`,
    { body: { rating } },
  );
}

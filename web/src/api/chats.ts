import { requestJson, requestNothing } from './http';
import type { ChatSummary, StoredChat } from './types';

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

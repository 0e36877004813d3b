import type { ChatRow } from '../db/repositories/chats.js';

/** The stored chat as the original service answered it. */
export function chatView(row: ChatRow) {
  return {
    id: row.id,
    chat_id: row.chatId,
    title: row.title,
    messages: row.messages,
    user_id: row.userId,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

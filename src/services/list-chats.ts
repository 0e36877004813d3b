import type { Caller } from '../caller.js';
import type { ServiceDependencies } from './dependencies.js';

/** The caller's chats, most recently updated first, one page at a time. */
export async function listChats(
  deps: ServiceDependencies,
  caller: Caller,
  page: { limit: number; offset: number },
) {
  const rows = await deps.data.chats.listUserChats(caller.userId, page);
  const total = await deps.data.chats.countUserChats(caller.userId);
  return {
    total,
    chats: rows.map((row) => ({
      id: row.id,
      chat_id: row.chatId,
      title: row.title,
      updated_at: row.updatedAt.toISOString(),
    })),
  };
}

import type { Caller } from '../caller.js';
import { countUserChats, listUserChats } from '../db/repositories/chats.js';
import type { ServiceDependencies } from './dependencies.js';

/** The caller's chats, most recently updated first, one page at a time. */
export async function listChats(
  deps: ServiceDependencies,
  caller: Caller,
  page: { limit: number; offset: number },
) {
  const rows = await listUserChats(deps.db, caller.userId, page);
  const total = await countUserChats(deps.db, caller.userId);
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

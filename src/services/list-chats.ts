import { count, desc, eq } from 'drizzle-orm';
import type { Caller } from '../caller.js';
import { chats } from '../db/schema.js';
import type { ServiceDependencies } from './dependencies.js';

/** The caller's chats, most recently updated first, one page at a time. */
export async function listChats(
  deps: ServiceDependencies,
  caller: Caller,
  page: { limit: number; offset: number },
) {
  const rows = await deps.db
    .select({ id: chats.id, chatId: chats.chatId, title: chats.title, updatedAt: chats.updatedAt })
    .from(chats)
    .where(eq(chats.userId, caller.userId))
    .orderBy(desc(chats.updatedAt), desc(chats.id))
    .limit(page.limit)
    .offset(page.offset);
  const [total] = await deps.db.select({ value: count() }).from(chats).where(eq(chats.userId, caller.userId));
  return {
    total: total?.value ?? 0,
    chats: rows.map((row) => ({
      id: row.id,
      chat_id: row.chatId,
      title: row.title,
      updated_at: row.updatedAt.toISOString(),
    })),
  };
}

import { sql } from 'drizzle-orm';
import { type Database, queryRows } from '../client.js';
import { chats, type StoredChatMessage } from '../schema.js';

export interface ChatWrite {
  readonly userId: number;
  readonly chatId: string;
  /** Used only when the chat is created (or still has no title). */
  readonly title: string;
  readonly messages: readonly StoredChatMessage[];
}

export interface ChatWriteResult {
  readonly id: number;
  readonly title: string;
  readonly created: boolean;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

interface UpsertedRow {
  id: number;
  chat_id: string;
  user_id: number;
  title: string;
  created_at: string | Date;
  updated_at: string | Date;
  inserted: boolean;
}

/**
 * Creates or replaces many chats in one statement. Writes to the same chat are applied in order:
 * the last one's messages are stored, and only the first can have created the chat.
 */
export async function upsertChats(db: Database, writes: readonly ChatWrite[]): Promise<ChatWriteResult[]> {
  const keyOf = (write: { userId: number; chatId: string }) => `${write.userId}\u0000${write.chatId}`;
  const lastByKey = new Map<string, ChatWrite>();
  for (const write of writes) lastByKey.set(keyOf(write), write);
  const records = [...lastByKey.values()].map((write) => ({
    chat_id: write.chatId,
    user_id: write.userId,
    title: write.title,
    messages: write.messages,
  }));
  const rows = await queryRows<UpsertedRow>(
    db,
    sql`
      INSERT INTO ${chats} (chat_id, user_id, title, messages)
      SELECT chat_id, user_id, title, messages
      FROM jsonb_to_recordset(${JSON.stringify(records)}::jsonb)
        AS input(chat_id text, user_id integer, title text, messages jsonb)
      ON CONFLICT (user_id, chat_id) DO UPDATE SET
        messages = excluded.messages,
        title = CASE WHEN ${chats.title} = '' THEN excluded.title ELSE ${chats.title} END,
        updated_at = now()
      RETURNING id, chat_id, user_id, title, created_at, updated_at, (xmax = 0) AS inserted`,
  );
  const rowByKey = new Map(
    rows.map((row) => [keyOf({ userId: Number(row.user_id), chatId: row.chat_id }), row]),
  );
  const seen = new Set<string>();
  return writes.map((write) => {
    const key = keyOf(write);
    const row = rowByKey.get(key);
    if (row === undefined) throw new Error('A chat write got no row back');
    const created = row.inserted === true && !seen.has(key);
    seen.add(key);
    return {
      id: Number(row.id),
      title: row.title,
      created,
      createdAt: new Date(row.created_at),
      updatedAt: new Date(row.updated_at),
    };
  });
}

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
  position: number | string;
  id: number;
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
  // Rows are matched to inputs by position inside SQL: comparing returned text in JS would trip
  // on drivers that alter it (PGlite drops a leading U+FEFF from text values).
  const rows = await queryRows<UpsertedRow>(
    db,
    sql`
      WITH input AS (
        SELECT * FROM ROWS FROM (
          jsonb_to_recordset(${JSON.stringify(records)}::jsonb)
            AS (chat_id text, user_id integer, title text, messages jsonb)
        ) WITH ORDINALITY AS input(chat_id, user_id, title, messages, position)
      ), upserted AS (
        INSERT INTO ${chats} (chat_id, user_id, title, messages)
        SELECT chat_id, user_id, title, messages FROM input ORDER BY position
        ON CONFLICT (user_id, chat_id) DO UPDATE SET
          messages = excluded.messages,
          title = CASE WHEN ${chats.title} = '' THEN excluded.title ELSE ${chats.title} END,
          updated_at = now()
        RETURNING id, chat_id, user_id, title, created_at, updated_at, (xmax = 0) AS inserted
      )
      SELECT input.position, upserted.id, upserted.title, upserted.created_at, upserted.updated_at, upserted.inserted
      FROM upserted JOIN input ON input.user_id = upserted.user_id AND input.chat_id = upserted.chat_id`,
  );
  const keys = [...lastByKey.keys()];
  const rowByKey = new Map(rows.map((row) => [keys[Number(row.position) - 1], row]));
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

export interface ChatAppend {
  readonly userId: number;
  readonly chatId: string;
  /** Used only when the chat is created (or still has no title). */
  readonly title: string;
  readonly messages: readonly StoredChatMessage[];
  /** The chat keeps its last this many messages; older ones go. */
  readonly maxMessages: number;
}

/**
 * Appends messages to a chat, creating it when missing, in one statement: the row lock of
 * `ON CONFLICT DO UPDATE` orders concurrent appends to the same chat, so none is lost.
 */
export async function appendChatMessages(
  db: Database,
  append: ChatAppend,
): Promise<{ readonly id: number; readonly created: boolean }> {
  const max = Math.max(1, append.maxMessages);
  const messages = JSON.stringify(append.messages.slice(-max));
  const [row] = await queryRows<{ id: number; inserted: boolean }>(
    db,
    sql`
      INSERT INTO ${chats} (chat_id, user_id, title, messages)
      VALUES (${append.chatId}, ${append.userId}, ${append.title}, ${messages}::jsonb)
      ON CONFLICT (user_id, chat_id) DO UPDATE SET
        messages = (
          SELECT COALESCE(jsonb_agg(kept.value ORDER BY kept.position), '[]'::jsonb)
          FROM jsonb_array_elements(${chats.messages} || excluded.messages)
            WITH ORDINALITY AS kept(value, position)
          WHERE kept.position > jsonb_array_length(${chats.messages} || excluded.messages) - ${max}
        ),
        title = CASE WHEN ${chats.title} = '' THEN excluded.title ELSE ${chats.title} END,
        updated_at = now()
      RETURNING id, (xmax = 0) AS inserted`,
  );
  if (row === undefined) throw new Error('A chat append got no row back');
  return { id: Number(row.id), created: row.inserted === true };
}

/** The last `limit` messages of one user's chat, oldest first; none when the chat does not exist. */
export async function recentChatMessages(
  db: Database,
  userId: number,
  chatId: string,
  limit: number,
): Promise<StoredChatMessage[]> {
  if (limit <= 0) return [];
  // Sliced in SQL: a long chat's older messages never leave the database.
  const [row] = await queryRows<{ messages: StoredChatMessage[] | null }>(
    db,
    sql`
      SELECT (
        SELECT jsonb_agg(recent.value ORDER BY recent.position)
        FROM jsonb_array_elements(${chats.messages}) WITH ORDINALITY AS recent(value, position)
        WHERE recent.position > jsonb_array_length(${chats.messages}) - ${limit}
      ) AS messages
      FROM ${chats}
      WHERE ${chats.userId} = ${userId} AND ${chats.chatId} = ${chatId}`,
  );
  return row?.messages ?? [];
}

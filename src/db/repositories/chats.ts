import { and, count, desc, eq, sql } from 'drizzle-orm';
import { type Database, queryRows } from '../client.js';
import { type AnswerRating, chats, type StoredChatMessage } from '../schema.js';

export type { AnswerRating, StoredChatMessage };

/** A stored chat, as drizzle reads it. */
export type ChatRow = typeof chats.$inferSelect;

/** A chat as the list of a user's chats shows it: no messages. */
export interface ChatSummaryRow {
  readonly id: number;
  readonly chatId: string;
  readonly title: string;
  readonly updatedAt: Date;
}

/** One user's chat, or undefined when that user has no chat of this id. */
export async function findUserChat(
  db: Database,
  userId: number,
  chatId: string,
): Promise<ChatRow | undefined> {
  const [row] = await db
    .select()
    .from(chats)
    .where(and(eq(chats.userId, userId), eq(chats.chatId, chatId)))
    .limit(1);
  return row;
}

/** A page of one user's chats, most recently updated first. */
export async function listUserChats(
  db: Database,
  userId: number,
  page: { readonly limit: number; readonly offset: number },
): Promise<ChatSummaryRow[]> {
  return db
    .select({ id: chats.id, chatId: chats.chatId, title: chats.title, updatedAt: chats.updatedAt })
    .from(chats)
    .where(eq(chats.userId, userId))
    .orderBy(desc(chats.updatedAt), desc(chats.id))
    .limit(page.limit)
    .offset(page.offset);
}

/** How many chats one user has. */
export async function countUserChats(db: Database, userId: number): Promise<number> {
  const [total] = await db.select({ value: count() }).from(chats).where(eq(chats.userId, userId));
  return total?.value ?? 0;
}

/** Deletes every chat of the user (a taken-over account's history was its creator's). */
export async function deleteAllUserChats(db: Database, userId: number): Promise<void> {
  await db.delete(chats).where(eq(chats.userId, userId));
}

/** Deletes one user's chat; false when that user had no chat of this id. */
export async function deleteUserChat(db: Database, userId: number, chatId: string): Promise<boolean> {
  const deleted = await db
    .delete(chats)
    .where(and(eq(chats.userId, userId), eq(chats.chatId, chatId)))
    .returning({ id: chats.id });
  return deleted.length > 0;
}

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
  /**
   * The ratings the stored messages kept, by position (see `upsertChats`); empty for a write that a
   * later write to the same chat in the same statement replaced.
   */
  readonly feedback: ReadonlyMap<number, AnswerRating>;
}

interface UpsertedRow {
  position: number | string;
  id: number;
  title: string;
  created_at: string | Date;
  updated_at: string | Date;
  inserted: boolean;
  feedback: [number, AnswerRating][] | null;
}

/**
 * Creates or replaces many chats in one statement. Writes to the same chat are applied in order:
 * the last one's messages are stored, and only the first can have created the chat.
 *
 * A replaced message keeps its rating (`feedback`) when the new message at its position has the
 * same role and content: a client that saves the whole chat again, one turn longer, does not erase
 * the ratings given meanwhile. The row lock of `ON CONFLICT DO UPDATE` orders this against
 * `rateChatMessage`, so a rating committed just before the save is seen by it.
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
          messages = (
            SELECT COALESCE(
              jsonb_agg(
                CASE
                  WHEN stored.value -> 'feedback' IS NOT NULL
                    AND stored.value -> 'role' = saved.value -> 'role'
                    AND stored.value -> 'content' = saved.value -> 'content'
                  THEN saved.value || jsonb_build_object('feedback', stored.value -> 'feedback')
                  ELSE saved.value
                END
                ORDER BY saved.position
              ),
              '[]'::jsonb
            )
            FROM jsonb_array_elements(excluded.messages) WITH ORDINALITY AS saved(value, position)
            LEFT JOIN jsonb_array_elements(${chats.messages}) WITH ORDINALITY AS stored(value, position)
              ON stored.position = saved.position
          ),
          title = CASE WHEN ${chats.title} = '' THEN excluded.title ELSE ${chats.title} END,
          updated_at = now()
        RETURNING id, chat_id, user_id, title, created_at, updated_at, (xmax = 0) AS inserted,
          (
            SELECT jsonb_agg(jsonb_build_array(kept.position - 1, kept.value -> 'feedback'))
            FROM jsonb_array_elements(messages) WITH ORDINALITY AS kept(value, position)
            WHERE kept.value -> 'feedback' IS NOT NULL
          ) AS feedback
      )
      SELECT input.position, upserted.id, upserted.title, upserted.created_at, upserted.updated_at,
        upserted.inserted, upserted.feedback
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
    const stored = lastByKey.get(key) === write;
    return {
      id: Number(row.id),
      title: row.title,
      created,
      createdAt: new Date(row.created_at),
      updatedAt: new Date(row.updated_at),
      feedback: new Map(stored ? (row.feedback ?? []).map(([index, rating]) => [Number(index), rating]) : []),
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
 * `ON CONFLICT DO UPDATE` orders concurrent appends to the same chat (and ratings), so none is lost.
 * Answers how many messages the chat holds after it: the last appended is at `messageCount - 1`.
 */
export async function appendChatMessages(
  db: Database,
  append: ChatAppend,
): Promise<{ readonly id: number; readonly created: boolean; readonly messageCount: number }> {
  const max = Math.max(1, append.maxMessages);
  const messages = JSON.stringify(append.messages.slice(-max));
  const [row] = await queryRows<{ id: number; inserted: boolean; message_count: number | string }>(
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
      RETURNING id, (xmax = 0) AS inserted, jsonb_array_length(messages) AS message_count`,
  );
  if (row === undefined) throw new Error('A chat append got no row back');
  return { id: Number(row.id), created: row.inserted === true, messageCount: Number(row.message_count) };
}

export interface ChatRating {
  readonly userId: number;
  readonly chatId: string;
  /** The message's position in the chat, from 0. */
  readonly messageIndex: number;
  /** null clears the rating. */
  readonly rating: AnswerRating | null;
}

/**
 * What rating a message did: `rated`; or why not: no such chat of this user, no message at that
 * index (`messageCount` says how many there are), or a message that is not an answer.
 */
export type ChatRatingOutcome =
  | { readonly outcome: 'rated' }
  | { readonly outcome: 'chat_not_found' }
  | { readonly outcome: 'no_such_message'; readonly messageCount: number }
  | { readonly outcome: 'not_an_answer'; readonly role: string | null };

/**
 * Sets (or, with null, removes) the `feedback` of one assistant message of a user's chat, in one
 * UPDATE of that element alone: messages appended or saved by other statements are not touched,
 * and the row lock orders it against them. The chat's `updated_at` stays: rating is not activity
 * that should move a chat up the list.
 */
export async function rateChatMessage(db: Database, rating: ChatRating): Promise<ChatRatingOutcome> {
  const { userId, chatId, messageIndex } = rating;
  if (!Number.isSafeInteger(messageIndex) || messageIndex < 0) {
    throw new Error('A message index is a non-negative integer');
  }
  const path = `{${messageIndex},feedback}`;
  const [row] = await queryRows<{
    rated: boolean;
    found: boolean;
    message_count: number | string | null;
    role: string | null;
  }>(
    db,
    sql`
      WITH rated AS (
        UPDATE ${chats} SET messages = CASE
            WHEN ${rating.rating}::text IS NULL THEN ${chats.messages} #- ${path}::text[]
            ELSE jsonb_set(${chats.messages}, ${path}::text[], to_jsonb(${rating.rating}::text))
          END
        WHERE ${chats.userId} = ${userId} AND ${chats.chatId} = ${chatId}
          AND jsonb_typeof(${chats.messages} -> ${messageIndex}::int) = 'object'
          AND ${chats.messages} -> ${messageIndex}::int ->> 'role' = 'assistant'
        RETURNING ${chats.id}
      )
      SELECT
        EXISTS (SELECT 1 FROM rated) AS rated,
        ${chats.id} IS NOT NULL AS found,
        jsonb_array_length(${chats.messages}) AS message_count,
        ${chats.messages} -> ${messageIndex}::int ->> 'role' AS role
      FROM (SELECT 1) AS one
      LEFT JOIN ${chats} ON ${chats.userId} = ${userId} AND ${chats.chatId} = ${chatId}`,
  );
  if (row?.rated === true) return { outcome: 'rated' };
  if (row === undefined || row.found !== true) return { outcome: 'chat_not_found' };
  const messageCount = Number(row.message_count ?? 0);
  if (messageIndex >= messageCount) return { outcome: 'no_such_message', messageCount };
  return { outcome: 'not_an_answer', role: row.role };
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

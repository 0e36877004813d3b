import { and, eq, gt, sql } from 'drizzle-orm';
import { type Database, queryRows } from '../client.js';
import { emailCodes } from '../schema.js';

/** What a mailed code lets its holder do. */
export type EmailCodePurpose = 'verify_email' | 'reset_password';

export async function insertEmailCode(
  db: Database,
  code: { userId: number; purpose: EmailCodePurpose; codeHash: string; expiresAt: Date },
): Promise<void> {
  await db.insert(emailCodes).values(code);
}

/**
 * Uses up a code: deletes it and answers its user, if it exists, has this purpose and has not
 * expired. One statement, so two clicks on the same link cannot both succeed.
 */
export async function consumeEmailCode(
  db: Database,
  purpose: EmailCodePurpose,
  codeHash: string,
): Promise<number | undefined> {
  const [row] = await queryRows<{ user_id: number; fresh: boolean }>(
    db,
    sql`
      DELETE FROM ${emailCodes}
      WHERE code_hash = ${codeHash} AND purpose = ${purpose}
      RETURNING user_id, expires_at > now() AS fresh
    `,
  );
  return row?.fresh === true ? row.user_id : undefined;
}

/**
 * Drops a user's codes of one purpose (a newer one replaces them; a used reset ends the others), or
 * all of them without a purpose (an account handed over).
 */
export async function deleteEmailCodes(
  db: Database,
  userId: number,
  purpose?: EmailCodePurpose,
): Promise<void> {
  await db
    .delete(emailCodes)
    .where(
      purpose === undefined
        ? eq(emailCodes.userId, userId)
        : and(eq(emailCodes.userId, userId), eq(emailCodes.purpose, purpose)),
    );
}

/** Drops codes that expired before `before` (the worker's hourly clean-up). */
export async function deleteExpiredEmailCodes(db: Database, before: Date): Promise<number> {
  const rows = await queryRows<{ id: number }>(
    db,
    sql`DELETE FROM ${emailCodes} WHERE expires_at < ${before.toISOString()}::timestamptz RETURNING id`,
  );
  return rows.length;
}

/** The user a code is for, if it exists, has this purpose and has not expired; the code stays usable. */
export async function findEmailCodeUser(
  db: Database,
  purpose: EmailCodePurpose,
  codeHash: string,
): Promise<number | undefined> {
  const [row] = await db
    .select({ userId: emailCodes.userId })
    .from(emailCodes)
    .where(
      and(
        eq(emailCodes.codeHash, codeHash),
        eq(emailCodes.purpose, purpose),
        gt(emailCodes.expiresAt, sql`now()`),
      ),
    )
    .limit(1);
  return row?.userId;
}

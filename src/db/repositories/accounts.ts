import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '../client.js';
import { accounts } from '../schema.js';

export type AccountRow = typeof accounts.$inferSelect;

/** What a sign-in tells of a provider account: its kind and its tokens (sealed), as columns. */
export type AccountTokens = Pick<
  typeof accounts.$inferInsert,
  | 'type'
  | 'refreshTokenSealed'
  | 'accessTokenSealed'
  | 'idTokenSealed'
  | 'expiresAt'
  | 'scope'
  | 'sessionState'
  | 'tokenType'
>;

export async function findAccount(
  db: Database,
  provider: string,
  providerAccountId: string,
): Promise<AccountRow | undefined> {
  const [row] = await db
    .select()
    .from(accounts)
    .where(and(eq(accounts.provider, provider), eq(accounts.providerAccountId, providerAccountId)))
    .limit(1);
  return row;
}

/** Links a provider account to a user. */
export async function insertAccount(
  db: Database,
  account: { userId: number; provider: string; providerAccountId: string } & AccountTokens,
): Promise<void> {
  await db.insert(accounts).values(account);
}

/** Overwrites the columns given (a sign-in's fresh tokens); the others keep their values. */
export async function updateAccountTokens(
  db: Database,
  accountId: number,
  tokens: Partial<AccountTokens>,
): Promise<void> {
  await db
    .update(accounts)
    .set({ ...tokens, updatedAt: sql`now()` })
    .where(eq(accounts.id, accountId));
}

/** Unlinks every provider account of a user. */
export async function deleteUserAccounts(db: Database, userId: number): Promise<void> {
  await db.delete(accounts).where(eq(accounts.userId, userId));
}

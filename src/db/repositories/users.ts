import { and, eq, gt, inArray, isNull, ne, sql } from 'drizzle-orm';
import type { Caller } from '../../caller.js';
import type { Database } from '../client.js';
import { accessTokens, accounts, connectors, emailCodes, teams, users, vectorStores } from '../schema.js';

export type UserRow = typeof users.$inferSelect;
export type TeamRow = typeof teams.$inferSelect;
export type AccountRow = typeof accounts.$inferSelect;
export type VectorStoreRow = typeof vectorStores.$inferSelect;

export async function findUserByEmail(db: Database, email: string): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.email, email)).limit(1);
  return row;
}

export async function findUserByUsername(db: Database, username: string): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.username, username)).limit(1);
  return row;
}

export async function findUserById(db: Database, id: number): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.id, id)).limit(1);
  return row;
}

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

export async function findTeam(db: Database, id: number): Promise<TeamRow | undefined> {
  const [row] = await db.select().from(teams).where(eq(teams.id, id)).limit(1);
  return row;
}

export async function findVectorStore(db: Database, teamId: number): Promise<VectorStoreRow | undefined> {
  const [row] = await db.select().from(vectorStores).where(eq(vectorStores.teamId, teamId)).limit(1);
  return row;
}

/** The callers behind bearer-token hashes that are known, unexpired and of active users. */
export async function findCallersByTokenHashes(
  db: Database,
  tokenHashes: readonly string[],
): Promise<(Caller & { expiresAt: Date })[]> {
  const rows = await db
    .select({
      userId: users.id,
      teamId: users.teamId,
      email: users.email,
      tokenHash: accessTokens.tokenHash,
      expiresAt: accessTokens.expiresAt,
    })
    .from(accessTokens)
    .innerJoin(users, eq(users.id, accessTokens.userId))
    .where(
      and(
        inArray(accessTokens.tokenHash, [...tokenHashes]),
        gt(accessTokens.expiresAt, sql`now()`),
        eq(users.isActive, true),
      ),
    );
  return rows.flatMap((row) => (row.teamId === null ? [] : [{ ...row, teamId: row.teamId }]));
}

export async function insertAccessToken(
  db: Database,
  userId: number,
  tokenHash: string,
  expiresAt: Date,
): Promise<void> {
  await db.insert(accessTokens).values({ userId, tokenHash, expiresAt });
}

export async function deleteAccessToken(db: Database, tokenHash: string): Promise<void> {
  await db.delete(accessTokens).where(eq(accessTokens.tokenHash, tokenHash));
}

/** Revokes every bearer token of a user, or every one but `keepTokenHash` (the session that asked). */
export async function deleteUserAccessTokens(
  db: Database,
  userId: number,
  keepTokenHash?: string,
): Promise<void> {
  await db
    .delete(accessTokens)
    .where(
      keepTokenHash === undefined
        ? eq(accessTokens.userId, userId)
        : and(eq(accessTokens.userId, userId), ne(accessTokens.tokenHash, keepTokenHash)),
    );
}

/** Sets (or clears, with null) a user's password hash. */
export async function updatePasswordHash(
  db: Database,
  userId: number,
  passwordHash: string | null,
): Promise<void> {
  await db.update(users).set({ passwordHash, updatedAt: sql`now()` }).where(eq(users.id, userId));
}

/** Records that the user proved their e-mail (once: the first proof's time is kept). */
export async function markEmailVerified(db: Database, userId: number): Promise<void> {
  await db
    .update(users)
    .set({ emailVerifiedAt: sql`coalesce(${users.emailVerifiedAt}, now())`, updatedAt: sql`now()` })
    .where(eq(users.id, userId));
}

/**
 * Hands an unverified account to the person who just proved `email` is theirs: everything its
 * creator could have set up to keep a way in goes (password, username, bearer tokens, provider
 * accounts and their tokens, mailed codes, and the Slack installation of a team it owns, whose bot
 * would answer that workspace from the team's documents), and the account takes the proven
 * address. Undefined, with nothing changed, when the account was verified meanwhile. The caller
 * runs this in the transaction that proves the address.
 */
export async function claimUnverifiedUser(
  db: Database,
  userId: number,
  email: string,
): Promise<UserRow | undefined> {
  // The row is locked first, so a verification committing meanwhile is seen, not overwritten.
  const [claimed] = await db
    .update(users)
    .set({ email, passwordHash: null, username: null, emailVerifiedAt: sql`now()`, updatedAt: sql`now()` })
    .where(and(eq(users.id, userId), isNull(users.emailVerifiedAt)))
    .returning();
  if (claimed === undefined) return undefined;
  await deleteUserAccessTokens(db, userId);
  await db.delete(accounts).where(eq(accounts.userId, userId));
  await db.delete(emailCodes).where(eq(emailCodes.userId, userId));
  const ownedTeams = db.select({ id: teams.id }).from(teams).where(eq(teams.ownerUserId, userId));
  await db
    .delete(connectors)
    .where(and(inArray(connectors.teamId, ownedTeams), eq(connectors.slug, 'chatapp')));
  return claimed;
}

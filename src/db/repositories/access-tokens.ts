import { and, eq, gt, inArray, ne, sql } from 'drizzle-orm';
import { type Caller, teamRoleOf } from '../../caller.js';
import type { Database } from '../client.js';
import { accessTokens, users } from '../schema.js';

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
      emailVerifiedAt: users.emailVerifiedAt,
      role: users.role,
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
  return rows.flatMap(({ emailVerifiedAt, ...row }) =>
    row.teamId === null
      ? []
      : [{ ...row, teamId: row.teamId, emailVerified: emailVerifiedAt !== null, role: teamRoleOf(row.role) }],
  );
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

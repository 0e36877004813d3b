import { and, eq, gt, inArray, isNull, ne, or, sql } from 'drizzle-orm';
import { type Caller, teamRoleOf } from '../../caller.js';
import type { Database } from '../client.js';
import { accessTokens, users } from '../schema.js';

/**
 * The callers behind bearer-token hashes that are known, unexpired and of active users, each with
 * the group addresses their team's directory (SCIM) puts them in: a group whose display name or
 * external id is an e-mail address, while the person is active in it.
 */
export async function findCallersByTokenHashes(
  db: Database,
  tokenHashes: readonly string[],
): Promise<(Caller & { expiresAt: Date | null })[]> {
  const rows = await db
    .select({
      userId: users.id,
      teamId: users.teamId,
      email: users.email,
      emailVerifiedAt: users.emailVerifiedAt,
      role: users.role,
      tokenHash: accessTokens.tokenHash,
      expiresAt: accessTokens.expiresAt,
      groups: sql<string[] | null>`(
        SELECT array_agg(DISTINCT lower(named.group_address))
          FROM scim_group_members m
          JOIN scim_users su ON su.id = m.scim_user_id
          JOIN scim_groups g ON g.id = m.group_id
          CROSS JOIN LATERAL (VALUES (g.display_name), (g.external_id)) AS named(group_address)
         WHERE su.user_id = ${users.id} AND su.active AND su.deleted_at IS NULL
           AND g.team_id = ${users.teamId} AND named.group_address LIKE '%_@_%'
      )`,
    })
    .from(accessTokens)
    .innerJoin(users, eq(users.id, accessTokens.userId))
    .where(
      and(
        inArray(accessTokens.tokenHash, [...tokenHashes]),
        or(isNull(accessTokens.expiresAt), gt(accessTokens.expiresAt, sql`now()`)),
        eq(users.isActive, true),
      ),
    );
  return rows.flatMap(({ emailVerifiedAt, groups, ...row }) =>
    row.teamId === null
      ? []
      : [
          {
            ...row,
            teamId: row.teamId,
            emailVerified: emailVerifiedAt !== null,
            role: teamRoleOf(row.role),
            groups: groups ?? [],
          },
        ],
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

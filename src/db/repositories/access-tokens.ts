import { and, count, desc, eq, gt, inArray, isNull, ne, or, sql } from 'drizzle-orm';
import { type Caller, type TokenKind, teamRoleOf, tokenKindOf } from '../../caller.js';
import { type Database, queryRows } from '../client.js';
import { accessTokens, oauthGrants, users } from '../schema.js';

/**
 * The callers behind bearer-token hashes that are known, unexpired and of active users, each with
 * the group addresses their team's directory (SCIM) puts them in: a group whose display name or
 * external id is an e-mail address, while the person is active in it.
 */
export async function findCallersByTokenHashes(
  db: Database,
  tokenHashes: readonly string[],
): Promise<(Caller & { expiresAt: Date | null; tokenKind: TokenKind })[]> {
  const rows = await db
    .select({
      userId: users.id,
      teamId: users.teamId,
      email: users.email,
      emailVerifiedAt: users.emailVerifiedAt,
      role: users.role,
      tokenHash: accessTokens.tokenHash,
      expiresAt: accessTokens.expiresAt,
      kind: accessTokens.kind,
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
  return rows.flatMap(({ emailVerifiedAt, groups, kind, ...row }) =>
    row.teamId === null
      ? []
      : [
          {
            ...row,
            teamId: row.teamId,
            emailVerified: emailVerifiedAt !== null,
            role: teamRoleOf(row.role),
            groups: groups ?? [],
            tokenKind: tokenKindOf(kind),
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

/**
 * Revokes every bearer token of a user, or every one but `keepTokenHash` (the session that asked),
 * and every OAuth client they connected (its refresh tokens too).
 */
export async function deleteUserAccessTokens(
  db: Database,
  userId: number,
  keepTokenHash?: string,
): Promise<void> {
  await db.delete(oauthGrants).where(eq(oauthGrants.userId, userId));
  await db
    .delete(accessTokens)
    .where(
      keepTokenHash === undefined
        ? eq(accessTokens.userId, userId)
        : and(eq(accessTokens.userId, userId), ne(accessTokens.tokenHash, keepTokenHash)),
    );
}

/** A personal access token as its owner sees it listed: never its secret nor its hash. */
export interface PersonalTokenRow {
  readonly publicId: string;
  readonly name: string;
  readonly createdAt: Date;
  readonly expiresAt: Date | null;
  readonly lastUsedAt: Date | null;
}

const personalTokenColumns = {
  publicId: sql<string>`${accessTokens.publicId}`,
  name: sql<string>`${accessTokens.name}`,
  createdAt: accessTokens.createdAt,
  expiresAt: accessTokens.expiresAt,
  lastUsedAt: accessTokens.lastUsedAt,
};

/** Unexpired by the database's clock, as `findCallersByTokenHashes` judges a token. */
const unexpired = or(isNull(accessTokens.expiresAt), gt(accessTokens.expiresAt, sql`now()`));

/**
 * Locks the user's row until the transaction ends, so their token creations happen one at a time
 * (the count of live tokens holds). `NO KEY UPDATE`: sign-ins inserting sessions for the user (a
 * foreign key check) do not wait. False when there is no such user.
 */
export async function lockUserTokens(db: Database, userId: number): Promise<boolean> {
  const rows = await queryRows<{ id: number }>(
    db,
    sql`SELECT id FROM ${users} WHERE id = ${userId} FOR NO KEY UPDATE`,
  );
  return rows.length > 0;
}

/** The user's personal tokens that still work. */
export async function countLivePersonalTokens(db: Database, userId: number): Promise<number> {
  const [row] = await db
    .select({ live: count() })
    .from(accessTokens)
    .where(and(eq(accessTokens.userId, userId), eq(accessTokens.kind, 'personal'), unexpired));
  return Number(row?.live ?? 0);
}

export async function insertPersonalToken(
  db: Database,
  token: {
    readonly userId: number;
    readonly tokenHash: string;
    readonly publicId: string;
    readonly name: string;
    readonly createdAt: Date;
    readonly expiresAt: Date | null;
  },
): Promise<PersonalTokenRow> {
  const [row] = await db
    .insert(accessTokens)
    .values({ ...token, kind: 'personal' })
    .returning(personalTokenColumns);
  if (row === undefined) throw new Error('the inserted token was not returned');
  return row;
}

/** The user's personal tokens that still work, newest first. */
export async function listLivePersonalTokens(db: Database, userId: number): Promise<PersonalTokenRow[]> {
  return db
    .select(personalTokenColumns)
    .from(accessTokens)
    .where(and(eq(accessTokens.userId, userId), eq(accessTokens.kind, 'personal'), unexpired))
    .orderBy(desc(accessTokens.createdAt), desc(accessTokens.id));
}

/** Deletes one of the user's personal tokens; answers its hash (to forget it), undefined when none. */
export async function deletePersonalToken(
  db: Database,
  userId: number,
  publicId: string,
): Promise<string | undefined> {
  const [row] = await db
    .delete(accessTokens)
    .where(
      and(
        eq(accessTokens.publicId, publicId),
        eq(accessTokens.userId, userId),
        eq(accessTokens.kind, 'personal'),
      ),
    )
    .returning({ tokenHash: accessTokens.tokenHash });
  return row?.tokenHash;
}

/**
 * Notes that requests used these tokens: only personal and OAuth ones (a session's use is not
 * listed anywhere), and only where the mark is a minute old or more, so a busy token costs a row
 * write a minute, not one a request.
 */
export async function markTokensUsed(db: Database, tokenHashes: readonly string[]): Promise<void> {
  if (tokenHashes.length === 0) return;
  await db
    .update(accessTokens)
    .set({ lastUsedAt: sql`now()` })
    .where(
      and(
        inArray(accessTokens.tokenHash, [...tokenHashes]),
        ne(accessTokens.kind, 'session'),
        or(isNull(accessTokens.lastUsedAt), sql`${accessTokens.lastUsedAt} < now() - interval '1 minute'`),
      ),
    );
}

import { and, desc, eq, lt, sql } from 'drizzle-orm';
import { type Database, queryRows } from '../client.js';
import {
  accessTokens,
  oauthAuthorizationCodes,
  oauthClients,
  oauthGrants,
  oauthRefreshTokens,
  users,
} from '../schema.js';

/** A registered OAuth client (RFC 7591), as the authorization server reads it. */
export interface OAuthClientRow {
  readonly id: string;
  readonly name: string;
  readonly redirectUris: readonly string[];
  readonly clientUri: string | null;
  readonly createdAt: Date;
}

export async function insertClient(
  db: Database,
  client: { id: string; name: string; redirectUris: readonly string[]; clientUri: string | null },
): Promise<OAuthClientRow> {
  const [row] = await db
    .insert(oauthClients)
    .values({ ...client, redirectUris: [...client.redirectUris] })
    .returning();
  if (row === undefined) throw new Error('INSERT … RETURNING gave no row');
  return row;
}

export async function findClient(db: Database, clientId: string): Promise<OAuthClientRow | undefined> {
  const [row] = await db.select().from(oauthClients).where(eq(oauthClients.id, clientId));
  return row;
}

/** What a consent's Allow authorizes, bound to the code that carries it to the client. */
export interface AuthorizationCodeGrant {
  readonly clientId: string;
  readonly userId: number;
  readonly redirectUri: string;
  readonly codeChallenge: string;
  readonly scope: string;
  readonly resource: string;
}

export async function insertAuthorizationCode(
  db: Database,
  code: AuthorizationCodeGrant & { codeHash: string; expiresAt: Date },
): Promise<void> {
  await db.insert(oauthAuthorizationCodes).values(code);
}

/** A code as its exchange finds it: used (with the grant it made) or not, expired or not. */
export interface AuthorizationCodeRow extends AuthorizationCodeGrant {
  readonly userActive: boolean;
  readonly expiresAt: Date;
  readonly usedAt: Date | null;
  readonly grantId: string | null;
}

/**
 * The code with this hash, locked until the transaction ends: two exchanges of one code run one
 * after the other, so exactly one finds it unused.
 */
export async function lockAuthorizationCode(
  db: Database,
  codeHash: string,
): Promise<AuthorizationCodeRow | undefined> {
  const [row] = await db
    .select({
      clientId: oauthAuthorizationCodes.clientId,
      userId: oauthAuthorizationCodes.userId,
      redirectUri: oauthAuthorizationCodes.redirectUri,
      codeChallenge: oauthAuthorizationCodes.codeChallenge,
      scope: oauthAuthorizationCodes.scope,
      resource: oauthAuthorizationCodes.resource,
      userActive: users.isActive,
      expiresAt: oauthAuthorizationCodes.expiresAt,
      usedAt: oauthAuthorizationCodes.usedAt,
      grantId: oauthAuthorizationCodes.grantId,
    })
    .from(oauthAuthorizationCodes)
    .innerJoin(users, eq(users.id, oauthAuthorizationCodes.userId))
    .where(eq(oauthAuthorizationCodes.codeHash, codeHash))
    .for('update', { of: oauthAuthorizationCodes });
  return row;
}

/** Marks a code used, remembering the grant its exchange made (what a replay revokes). */
export async function markAuthorizationCodeUsed(
  db: Database,
  codeHash: string,
  grantId: string,
  now: Date,
): Promise<void> {
  await db
    .update(oauthAuthorizationCodes)
    .set({ usedAt: now, grantId })
    .where(eq(oauthAuthorizationCodes.codeHash, codeHash));
}

export async function insertGrant(
  db: Database,
  grant: { id: string; userId: number; clientId: string; scope: string; resource: string; now: Date },
): Promise<void> {
  const { now, ...values } = grant;
  await db.insert(oauthGrants).values({ ...values, createdAt: now, refreshedAt: now });
}

/** Notes that the grant's client just got new tokens (the connected clients' "last used"). */
export async function markGrantRefreshed(db: Database, grantId: string, now: Date): Promise<void> {
  await db.update(oauthGrants).set({ refreshedAt: now }).where(eq(oauthGrants.id, grantId));
}

/** An OAuth access token: a bearer token like any other, for its grant's person, until `expiresAt`. */
export async function insertGrantAccessToken(
  db: Database,
  token: { grantId: string; userId: number; tokenHash: string; expiresAt: Date },
): Promise<void> {
  await db.insert(accessTokens).values({ ...token, kind: 'oauth' });
}

export async function insertRefreshToken(
  db: Database,
  token: { grantId: string; tokenHash: string; expiresAt: Date; now: Date },
): Promise<void> {
  const { now, ...values } = token;
  await db.insert(oauthRefreshTokens).values({ ...values, createdAt: now });
}

/** A refresh token with what its grant allows, as the token endpoint reads it. */
export interface RefreshTokenRow {
  readonly grantId: string;
  readonly clientId: string;
  readonly userId: number;
  readonly userActive: boolean;
  readonly scope: string;
  readonly resource: string;
  readonly expiresAt: Date;
  readonly usedAt: Date | null;
}

/** The refresh token with this hash, locked until the transaction ends (one rotation wins). */
export async function lockRefreshToken(
  db: Database,
  tokenHash: string,
): Promise<RefreshTokenRow | undefined> {
  const [row] = await db
    .select({
      grantId: oauthRefreshTokens.grantId,
      clientId: oauthGrants.clientId,
      userId: oauthGrants.userId,
      userActive: users.isActive,
      scope: oauthGrants.scope,
      resource: oauthGrants.resource,
      expiresAt: oauthRefreshTokens.expiresAt,
      usedAt: oauthRefreshTokens.usedAt,
    })
    .from(oauthRefreshTokens)
    .innerJoin(oauthGrants, eq(oauthGrants.id, oauthRefreshTokens.grantId))
    .innerJoin(users, eq(users.id, oauthGrants.userId))
    .where(eq(oauthRefreshTokens.tokenHash, tokenHash))
    .for('update', { of: oauthRefreshTokens });
  return row;
}

export async function markRefreshTokenUsed(db: Database, tokenHash: string, now: Date): Promise<void> {
  await db.update(oauthRefreshTokens).set({ usedAt: now }).where(eq(oauthRefreshTokens.tokenHash, tokenHash));
}

/**
 * Deletes a grant and so every token it gave; answers the hashes of its access tokens (for the
 * caller cache to forget), undefined when there was no such grant (for this user, when given).
 */
export async function deleteGrant(
  db: Database,
  grantId: string,
  userId?: number,
): Promise<readonly string[] | undefined> {
  const owner = userId === undefined ? sql`` : sql` AND user_id = ${userId}`;
  const rows = await queryRows<{ token_hash: string | null }>(
    db,
    sql`
      WITH gone AS (DELETE FROM ${oauthGrants} WHERE id = ${grantId}${owner} RETURNING id)
      SELECT t.token_hash
        FROM gone LEFT JOIN ${accessTokens} t ON t.grant_id = gone.id`,
  );
  if (rows.length === 0) return undefined;
  return rows.flatMap((row) => (row.token_hash === null ? [] : [row.token_hash]));
}

/** Which grant and client an OAuth access token belongs to (a revocation request's check). */
export async function findAccessTokenGrant(
  db: Database,
  tokenHash: string,
): Promise<{ grantId: string; clientId: string } | undefined> {
  const [row] = await db
    .select({ grantId: oauthGrants.id, clientId: oauthGrants.clientId })
    .from(accessTokens)
    .innerJoin(oauthGrants, eq(oauthGrants.id, accessTokens.grantId))
    .where(and(eq(accessTokens.tokenHash, tokenHash), eq(accessTokens.kind, 'oauth')));
  return row;
}

/** Which grant and client a refresh token (used or not) belongs to. */
export async function findRefreshTokenGrant(
  db: Database,
  tokenHash: string,
): Promise<{ grantId: string; clientId: string } | undefined> {
  const [row] = await db
    .select({ grantId: oauthGrants.id, clientId: oauthGrants.clientId })
    .from(oauthRefreshTokens)
    .innerJoin(oauthGrants, eq(oauthGrants.id, oauthRefreshTokens.grantId))
    .where(eq(oauthRefreshTokens.tokenHash, tokenHash));
  return row;
}

/** A client a person connected, as they see it listed. */
export interface ConnectedClientRow {
  readonly grantId: string;
  readonly clientId: string;
  readonly clientName: string;
  readonly clientUri: string | null;
  readonly connectedAt: Date;
  readonly lastUsedAt: Date;
}

/** The user's grants, newest first; last used: the latest token exchange or token use. */
export async function listUserGrants(db: Database, userId: number): Promise<ConnectedClientRow[]> {
  const lastTokenUse = sql<Date | null>`(
    SELECT max(t.last_used_at) FROM ${accessTokens} t WHERE t.grant_id = ${oauthGrants.id}
  )`;
  const rows = await db
    .select({
      grantId: oauthGrants.id,
      clientId: oauthClients.id,
      clientName: oauthClients.name,
      clientUri: oauthClients.clientUri,
      connectedAt: oauthGrants.createdAt,
      refreshedAt: oauthGrants.refreshedAt,
      lastTokenUse,
    })
    .from(oauthGrants)
    .innerJoin(oauthClients, eq(oauthClients.id, oauthGrants.clientId))
    .where(eq(oauthGrants.userId, userId))
    .orderBy(desc(oauthGrants.createdAt), desc(oauthGrants.id));
  return rows.map(({ refreshedAt, lastTokenUse: used, ...row }) => {
    const usedAt = used === null ? null : new Date(used);
    return { ...row, lastUsedAt: usedAt !== null && usedAt > refreshedAt ? usedAt : refreshedAt };
  });
}

/**
 * Forgets codes, refresh tokens and OAuth access tokens a day past their expiry, and grants whose client has not
 * refreshed since `idleGrantCutoff` (all their refresh tokens have expired): the worker's sweep.
 */
export async function deleteExpiredOAuthRecords(
  db: Database,
  now: Date,
  idleGrantCutoff: Date,
): Promise<void> {
  const dayAgo = new Date(now.getTime() - 24 * 3600 * 1000);
  await db.delete(oauthAuthorizationCodes).where(lt(oauthAuthorizationCodes.expiresAt, dayAgo));
  await db.delete(oauthRefreshTokens).where(lt(oauthRefreshTokens.expiresAt, dayAgo));
  await db.delete(oauthGrants).where(lt(oauthGrants.refreshedAt, idleGrantCutoff));
  await db
    .delete(accessTokens)
    .where(and(eq(accessTokens.kind, 'oauth'), lt(accessTokens.expiresAt, dayAgo)));
}

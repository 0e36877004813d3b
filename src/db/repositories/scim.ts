import { and, asc, count, eq, inArray, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import type { Database } from '../client.js';
import { scimGroupMembers, scimGroups, scimTokens, scimUsers } from '../schema.js';

/** A team's SCIM token as stored (its secret only as a hash). */
export type ScimTokenRow = typeof scimTokens.$inferSelect;
/** A person a team's directory provisioned (see the schema: member-to-be, linked, inactive, tombstone). */
export type ScimUserRow = typeof scimUsers.$inferSelect;
export type ScimGroupRow = typeof scimGroups.$inferSelect;

/** What SCIM stores of a person, besides the row's identity and links. */
export interface ScimUserFields {
  readonly userName: string;
  readonly externalId: string | null;
  readonly active: boolean;
  readonly displayName: string | null;
  readonly givenName: string | null;
  readonly familyName: string | null;
}

/** A group's member as the group resource lists them. */
export interface ScimGroupMember {
  readonly groupId: string;
  readonly scimUserId: string;
  readonly userName: string;
  readonly displayName: string | null;
}

/** A filter the listings take: one attribute equal to a value (SCIM's `eq`). */
export interface ScimEquality<Attribute extends string> {
  readonly attribute: Attribute;
  readonly value: string;
}

/** One page of a listing and how many there are in all. */
export interface ScimPage<Row> {
  readonly total: number;
  readonly rows: Row[];
}

// --- tokens ---

export async function insertScimToken(
  db: Database,
  token: { id: string; teamId: number; tokenHash: string; createdBy: number },
): Promise<ScimTokenRow> {
  const [row] = await db.insert(scimTokens).values(token).returning();
  if (row === undefined) throw new Error('SCIM token insert returned nothing');
  return row;
}

/** The team's SCIM tokens, oldest first. */
export async function listScimTokens(db: Database, teamId: number): Promise<ScimTokenRow[]> {
  return db
    .select()
    .from(scimTokens)
    .where(eq(scimTokens.teamId, teamId))
    .orderBy(asc(scimTokens.createdAt), asc(scimTokens.id));
}

/** Deletes one of the team's SCIM tokens; false when the team has none of this id. */
export async function deleteScimToken(db: Database, teamId: number, id: string): Promise<boolean> {
  const rows = await db
    .delete(scimTokens)
    .where(and(eq(scimTokens.id, id), eq(scimTokens.teamId, teamId)))
    .returning({ id: scimTokens.id });
  return rows.length > 0;
}

export async function findScimTokenByHash(
  db: Database,
  tokenHash: string,
): Promise<ScimTokenRow | undefined> {
  const [row] = await db.select().from(scimTokens).where(eq(scimTokens.tokenHash, tokenHash)).limit(1);
  return row;
}

/**
 * Records that a token was used at `now`, unless it was within the last minute: a directory syncing
 * sends many requests, and one write a minute says as much.
 */
export async function noteScimTokenUse(db: Database, id: string, now: Date): Promise<void> {
  const aMinuteAgo = new Date(now.getTime() - 60_000);
  await db
    .update(scimTokens)
    .set({ lastUsedAt: now })
    .where(
      and(eq(scimTokens.id, id), or(isNull(scimTokens.lastUsedAt), lt(scimTokens.lastUsedAt, aMinuteAgo))),
    );
}

// --- users ---

/** One of the team's provisioned people, not deleted. */
export async function findScimUser(
  db: Database,
  teamId: number,
  id: string,
): Promise<ScimUserRow | undefined> {
  const [row] = await db
    .select()
    .from(scimUsers)
    .where(and(eq(scimUsers.id, id), eq(scimUsers.teamId, teamId), isNull(scimUsers.deletedAt)))
    .limit(1);
  return row;
}

/** The row holding a (lower-cased) user name, in any team, deleted or not. */
export async function findScimUserByUserName(
  db: Database,
  userName: string,
): Promise<ScimUserRow | undefined> {
  const [row] = await db.select().from(scimUsers).where(eq(scimUsers.userName, userName)).limit(1);
  return row;
}

/** A page of the team's provisioned people (not deleted), oldest first, optionally filtered by one attribute. */
export async function listScimUsers(
  db: Database,
  teamId: number,
  filter: ScimEquality<'userName' | 'externalId'> | undefined,
  page: { readonly offset: number; readonly limit: number },
): Promise<ScimPage<ScimUserRow>> {
  const where = and(
    eq(scimUsers.teamId, teamId),
    isNull(scimUsers.deletedAt),
    filter === undefined
      ? undefined
      : filter.attribute === 'userName'
        ? eq(scimUsers.userName, filter.value.toLowerCase())
        : eq(scimUsers.externalId, filter.value),
  );
  const [total] = await db.select({ value: count() }).from(scimUsers).where(where);
  const rows =
    page.limit === 0
      ? []
      : await db
          .select()
          .from(scimUsers)
          .where(where)
          .orderBy(asc(scimUsers.createdAt), asc(scimUsers.id))
          .limit(page.limit)
          .offset(page.offset);
  return { total: total?.value ?? 0, rows };
}

export async function insertScimUser(
  db: Database,
  user: ScimUserFields & { id: string; teamId: number; userId: number | null },
): Promise<ScimUserRow> {
  const [row] = await db.insert(scimUsers).values(user).returning();
  if (row === undefined) throw new Error('SCIM user insert returned nothing');
  return row;
}

/**
 * Writes a provisioned person's attributes (and, when given, their link to an account); revives a
 * tombstone of the team when `revive` is set. Undefined when the team has no such row.
 */
export async function updateScimUser(
  db: Database,
  teamId: number,
  id: string,
  changes: ScimUserFields & { userId?: number | null; revive?: boolean },
): Promise<ScimUserRow | undefined> {
  const { revive, ...fields } = changes;
  const [row] = await db
    .update(scimUsers)
    .set({
      ...fields,
      updatedAt: sql`now()`,
      ...(revive === true ? { deletedAt: null, createdAt: sql`now()` } : {}),
    })
    .where(
      and(
        eq(scimUsers.id, id),
        eq(scimUsers.teamId, teamId),
        revive === true ? isNotNull(scimUsers.deletedAt) : isNull(scimUsers.deletedAt),
      ),
    )
    .returning();
  return row;
}

/**
 * Marks a provisioned person deleted: the row stays as a tombstone that keeps their address out of
 * single sign-on, in no group any more. False when the team has no such live row.
 */
export async function markScimUserDeleted(
  db: Database,
  teamId: number,
  id: string,
  now: Date,
): Promise<boolean> {
  const rows = await db
    .update(scimUsers)
    .set({ deletedAt: now, updatedAt: sql`now()` })
    .where(and(eq(scimUsers.id, id), eq(scimUsers.teamId, teamId), isNull(scimUsers.deletedAt)))
    .returning({ id: scimUsers.id });
  if (rows.length === 0) return false;
  await db.delete(scimGroupMembers).where(eq(scimGroupMembers.scimUserId, id));
  return true;
}

/** Deletes a tombstone for good (its address provisioned again, by another team or under a new name). */
export async function purgeScimTombstone(db: Database, id: string): Promise<void> {
  await db.delete(scimUsers).where(and(eq(scimUsers.id, id), isNotNull(scimUsers.deletedAt)));
}

/** Of these ids, the team's live provisioned people. */
export async function findLiveScimUsers(
  db: Database,
  teamId: number,
  ids: readonly string[],
): Promise<ScimUserRow[]> {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(scimUsers)
    .where(and(eq(scimUsers.teamId, teamId), inArray(scimUsers.id, [...ids]), isNull(scimUsers.deletedAt)));
}

// --- groups ---

export async function insertScimGroup(
  db: Database,
  group: { id: string; teamId: number; displayName: string; externalId: string | null },
): Promise<ScimGroupRow> {
  const [row] = await db.insert(scimGroups).values(group).returning();
  if (row === undefined) throw new Error('SCIM group insert returned nothing');
  return row;
}

export async function findScimGroup(
  db: Database,
  teamId: number,
  id: string,
): Promise<ScimGroupRow | undefined> {
  const [row] = await db
    .select()
    .from(scimGroups)
    .where(and(eq(scimGroups.id, id), eq(scimGroups.teamId, teamId)))
    .limit(1);
  return row;
}

/** The team's group of this display name (compared case-insensitively), if any. */
export async function findScimGroupByDisplayName(
  db: Database,
  teamId: number,
  displayName: string,
): Promise<ScimGroupRow | undefined> {
  const [row] = await db
    .select()
    .from(scimGroups)
    .where(and(eq(scimGroups.teamId, teamId), sql`lower(${scimGroups.displayName}) = lower(${displayName})`))
    .limit(1);
  return row;
}

/** A page of the team's groups, oldest first, optionally filtered by one attribute. */
export async function listScimGroups(
  db: Database,
  teamId: number,
  filter: ScimEquality<'displayName' | 'externalId'> | undefined,
  page: { readonly offset: number; readonly limit: number },
): Promise<ScimPage<ScimGroupRow>> {
  const where = and(
    eq(scimGroups.teamId, teamId),
    filter === undefined
      ? undefined
      : filter.attribute === 'displayName'
        ? eq(scimGroups.displayName, filter.value)
        : eq(scimGroups.externalId, filter.value),
  );
  const [total] = await db.select({ value: count() }).from(scimGroups).where(where);
  const rows =
    page.limit === 0
      ? []
      : await db
          .select()
          .from(scimGroups)
          .where(where)
          .orderBy(asc(scimGroups.createdAt), asc(scimGroups.id))
          .limit(page.limit)
          .offset(page.offset);
  return { total: total?.value ?? 0, rows };
}

export async function updateScimGroup(
  db: Database,
  teamId: number,
  id: string,
  fields: { displayName: string; externalId: string | null },
): Promise<ScimGroupRow | undefined> {
  const [row] = await db
    .update(scimGroups)
    .set({ ...fields, updatedAt: sql`now()` })
    .where(and(eq(scimGroups.id, id), eq(scimGroups.teamId, teamId)))
    .returning();
  return row;
}

/** Marks a group changed (its members), for its `meta.lastModified`. */
export async function touchScimGroup(db: Database, id: string): Promise<void> {
  await db.update(scimGroups).set({ updatedAt: sql`now()` }).where(eq(scimGroups.id, id));
}

export async function deleteScimGroup(db: Database, teamId: number, id: string): Promise<boolean> {
  const rows = await db
    .delete(scimGroups)
    .where(and(eq(scimGroups.id, id), eq(scimGroups.teamId, teamId)))
    .returning({ id: scimGroups.id });
  return rows.length > 0;
}

/** The live members of these groups, in the order they were provisioned. */
export async function listScimGroupMembers(
  db: Database,
  groupIds: readonly string[],
): Promise<ScimGroupMember[]> {
  if (groupIds.length === 0) return [];
  return db
    .select({
      groupId: scimGroupMembers.groupId,
      scimUserId: scimGroupMembers.scimUserId,
      userName: scimUsers.userName,
      displayName: scimUsers.displayName,
    })
    .from(scimGroupMembers)
    .innerJoin(scimUsers, eq(scimUsers.id, scimGroupMembers.scimUserId))
    .where(and(inArray(scimGroupMembers.groupId, [...groupIds]), isNull(scimUsers.deletedAt)))
    .orderBy(asc(scimUsers.createdAt), asc(scimUsers.id));
}

/** The accounts linked to a group's members (whose cached groups change with it). */
export async function linkedUsersOfGroup(db: Database, groupId: string): Promise<number[]> {
  const rows = await db
    .select({ userId: scimUsers.userId })
    .from(scimGroupMembers)
    .innerJoin(scimUsers, eq(scimUsers.id, scimGroupMembers.scimUserId))
    .where(and(eq(scimGroupMembers.groupId, groupId), isNotNull(scimUsers.userId)));
  return rows.flatMap((row) => (row.userId === null ? [] : [row.userId]));
}

/** Puts people in a group (those already in it stay once). */
export async function addScimGroupMembers(
  db: Database,
  groupId: string,
  scimUserIds: readonly string[],
): Promise<void> {
  if (scimUserIds.length === 0) return;
  await db
    .insert(scimGroupMembers)
    .values(scimUserIds.map((scimUserId) => ({ groupId, scimUserId })))
    .onConflictDoNothing();
}

/** Takes people out of a group; every member when `scimUserIds` is undefined. */
export async function removeScimGroupMembers(
  db: Database,
  groupId: string,
  scimUserIds: readonly string[] | undefined,
): Promise<void> {
  if (scimUserIds !== undefined && scimUserIds.length === 0) return;
  await db
    .delete(scimGroupMembers)
    .where(
      and(
        eq(scimGroupMembers.groupId, groupId),
        scimUserIds === undefined ? undefined : inArray(scimGroupMembers.scimUserId, [...scimUserIds]),
      ),
    );
}

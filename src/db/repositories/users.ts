import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Database } from '../client.js';
import { connectors, teams, users, vectorStores } from '../schema.js';
import { deleteUserAccessTokens } from './access-tokens.js';
import { deleteUserAccounts } from './accounts.js';
import { deleteEmailCodes } from './email-codes.js';

export type UserRow = typeof users.$inferSelect;
export type TeamRow = typeof teams.$inferSelect;
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

export async function findTeam(db: Database, id: number): Promise<TeamRow | undefined> {
  const [row] = await db.select().from(teams).where(eq(teams.id, id)).limit(1);
  return row;
}

export async function findVectorStore(db: Database, teamId: number): Promise<VectorStoreRow | undefined> {
  const [row] = await db.select().from(vectorStores).where(eq(vectorStores.teamId, teamId)).limit(1);
  return row;
}

/** A new user, without a team yet; `emailVerified` records the proof as made now. */
export async function insertUser(
  db: Database,
  user: {
    email: string;
    name: string;
    username: string | null;
    passwordHash: string | null;
    emailVerified: boolean;
  },
): Promise<UserRow | undefined> {
  const [row] = await db
    .insert(users)
    .values({
      email: user.email,
      name: user.name,
      username: user.username,
      passwordHash: user.passwordHash,
      emailVerifiedAt: user.emailVerified ? sql`now()` : null,
    })
    .returning();
  return row;
}

export async function insertTeam(
  db: Database,
  team: { name: string; ownerUserId: number },
): Promise<TeamRow | undefined> {
  const [row] = await db.insert(teams).values(team).returning();
  return row;
}

export async function insertVectorStore(
  db: Database,
  store: Pick<
    typeof vectorStores.$inferInsert,
    'teamId' | 'provider' | 'indexName' | 'environment' | 'namespaces'
  >,
): Promise<void> {
  await db.insert(vectorStores).values(store);
}

/** Puts a user in a team; answers the updated user. */
export async function setUserTeam(
  db: Database,
  userId: number,
  teamId: number,
): Promise<UserRow | undefined> {
  const [row] = await db.update(users).set({ teamId }).where(eq(users.id, userId)).returning();
  return row;
}

/** Makes a user the owner of a team (a team of their own), as of now; answers the updated user. */
export async function setTeamOwnerUser(
  db: Database,
  userId: number,
  teamId: number,
): Promise<UserRow | undefined> {
  const [row] = await db
    .update(users)
    .set({ teamId, role: 'owner', joinedAt: sql`now()`, updatedAt: sql`now()` })
    .where(eq(users.id, userId))
    .returning();
  return row;
}

/** Changes the fields given (absent ones keep their values); answers the updated user. */
export async function updateUserProfile(
  db: Database,
  userId: number,
  changes: { name?: string; username?: string; passwordHash?: string },
): Promise<UserRow | undefined> {
  const [row] = await db
    .update(users)
    .set({ ...changes, updatedAt: sql`now()` })
    .where(eq(users.id, userId))
    .returning();
  return row;
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
  await deleteUserAccounts(db, userId);
  await deleteEmailCodes(db, userId);
  const ownedTeams = db.select({ id: teams.id }).from(teams).where(eq(teams.ownerUserId, userId));
  await db
    .delete(connectors)
    .where(and(inArray(connectors.teamId, ownedTeams), eq(connectors.slug, 'chatapp')));
  return claimed;
}

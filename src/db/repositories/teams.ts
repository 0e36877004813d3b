import { and, asc, desc, eq, gt, isNull, ne, sql } from 'drizzle-orm';
import type { Reader } from '../../access.js';
import { type TeamRole, teamRoleOf } from '../../caller.js';
import { type Database, queryRows } from '../client.js';
import { teamInvitations, teams, users } from '../schema.js';
import type { SqlExecutor } from '../sql-connection.js';
import { readableDocumentCondition } from './access-lists.js';
import type { UserRow } from './users.js';

/** A stored invitation (its code only as a hash). */
export type InvitationRow = typeof teamInvitations.$inferSelect;

/** The roles an invitation may give: a team has one owner, who hands ownership over explicitly. */
export type InvitedRole = Exclude<TeamRole, 'owner'>;

/** A member of a team as the members list shows them. */
export interface TeamMember {
  readonly userId: number;
  readonly email: string;
  readonly name: string;
  readonly role: TeamRole;
  readonly joinedAt: Date;
}

const memberColumns = {
  userId: users.id,
  email: users.email,
  name: users.name,
  role: users.role,
  joinedAt: users.joinedAt,
};

function asMember(row: {
  userId: number;
  email: string;
  name: string;
  role: string;
  joinedAt: Date;
}): TeamMember {
  return { ...row, role: teamRoleOf(row.role) };
}

/** Open: not accepted, not withdrawn, not expired at `now`. */
function openAt(now: Date) {
  return and(
    isNull(teamInvitations.acceptedAt),
    isNull(teamInvitations.withdrawnAt),
    gt(teamInvitations.expiresAt, now),
  );
}

export async function insertInvitation(
  db: Database,
  invitation: {
    id: string;
    teamId: number;
    email: string;
    role: InvitedRole;
    codeHash: string;
    invitedBy: number;
    createdAt: Date;
    expiresAt: Date;
  },
): Promise<InvitationRow> {
  const [row] = await db.insert(teamInvitations).values(invitation).returning();
  if (row === undefined) throw new Error('Invitation insert returned nothing');
  return row;
}

/** Withdraws the team's open invitations for this address (a newer one replaces them). */
export async function withdrawOpenInvitationsFor(
  db: Database,
  teamId: number,
  email: string,
  now: Date,
): Promise<void> {
  await db
    .update(teamInvitations)
    .set({ withdrawnAt: now })
    .where(and(eq(teamInvitations.teamId, teamId), eq(teamInvitations.email, email), openAt(now)));
}

/** Withdraws every open invitation of the team (an account's unproven creator may have sent them). */
export async function withdrawTeamInvitations(db: Database, teamId: number, now: Date): Promise<void> {
  await db
    .update(teamInvitations)
    .set({ withdrawnAt: now })
    .where(and(eq(teamInvitations.teamId, teamId), openAt(now)));
}

/**
 * Withdraws the open invitations one member of the team made: they go when that member is removed,
 * leaves or is demoted to member, so a code kept back cannot bring them (or anyone) in afterwards.
 */
export async function withdrawInvitationsBy(
  db: Database,
  teamId: number,
  invitedBy: number,
  now: Date,
): Promise<void> {
  await db
    .update(teamInvitations)
    .set({ withdrawnAt: now })
    .where(and(eq(teamInvitations.teamId, teamId), eq(teamInvitations.invitedBy, invitedBy), openAt(now)));
}

/** The team's open invitations, newest first. */
export async function listOpenInvitations(db: Database, teamId: number, now: Date): Promise<InvitationRow[]> {
  return db
    .select()
    .from(teamInvitations)
    .where(and(eq(teamInvitations.teamId, teamId), openAt(now)))
    .orderBy(desc(teamInvitations.createdAt), desc(teamInvitations.id));
}

/**
 * Withdraws one of the team's invitations that was not used: `withdrawn` (again, if it already
 * was: the first time is kept), `accepted` when it was used (nothing changes), `not_found` when the
 * team has no such invitation.
 */
export async function withdrawInvitation(
  db: Database,
  teamId: number,
  id: string,
  now: Date,
): Promise<'withdrawn' | 'accepted' | 'not_found'> {
  const [withdrawn] = await db
    .update(teamInvitations)
    .set({ withdrawnAt: sql`coalesce(${teamInvitations.withdrawnAt}, ${now.toISOString()}::timestamptz)` })
    .where(
      and(eq(teamInvitations.id, id), eq(teamInvitations.teamId, teamId), isNull(teamInvitations.acceptedAt)),
    )
    .returning({ id: teamInvitations.id });
  if (withdrawn !== undefined) return 'withdrawn';
  const [used] = await db
    .select({ id: teamInvitations.id })
    .from(teamInvitations)
    .where(and(eq(teamInvitations.id, id), eq(teamInvitations.teamId, teamId)))
    .limit(1);
  return used === undefined ? 'not_found' : 'accepted';
}

/** The invitation a code stands for, whatever its state. */
export async function findInvitationByCodeHash(
  db: Database,
  codeHash: string,
): Promise<InvitationRow | undefined> {
  const [row] = await db
    .select()
    .from(teamInvitations)
    .where(eq(teamInvitations.codeHash, codeHash))
    .limit(1);
  return row;
}

/**
 * Marks an invitation used by `userId`, if it is still open at `now`: one statement, so of two
 * registrations with one code only one succeeds. False when it was not open any more.
 */
export async function acceptInvitation(
  db: Database,
  id: string,
  userId: number,
  now: Date,
): Promise<boolean> {
  const rows = await db
    .update(teamInvitations)
    .set({ acceptedAt: now, acceptedBy: userId })
    .where(and(eq(teamInvitations.id, id), openAt(now)))
    .returning({ id: teamInvitations.id });
  return rows.length > 0;
}

/** Everyone in the team, longest-standing first. */
export async function listTeamMembers(db: Database, teamId: number): Promise<TeamMember[]> {
  const rows = await db
    .select(memberColumns)
    .from(users)
    .where(eq(users.teamId, teamId))
    .orderBy(asc(users.joinedAt), asc(users.id));
  return rows.map(asMember);
}

/** One member of the team, or undefined when the user is not in it. */
export async function findTeamMember(
  db: Database,
  teamId: number,
  userId: number,
): Promise<TeamMember | undefined> {
  const [row] = await db
    .select(memberColumns)
    .from(users)
    .where(and(eq(users.id, userId), eq(users.teamId, teamId)))
    .limit(1);
  return row === undefined ? undefined : asMember(row);
}

/** Whether someone with this (lower-cased) e-mail is in the team. */
export async function teamHasMemberWithEmail(db: Database, teamId: number, email: string): Promise<boolean> {
  const [row] = await db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.teamId, teamId), eq(users.email, email)))
    .limit(1);
  return row !== undefined;
}

/** A member of a team, found by an address someone else vouches for (Slack's `users.info`). */
export interface TeamMemberByEmail {
  readonly userId: number;
  readonly teamId: number;
  /** As stored: lower-cased. */
  readonly email: string;
  /** Whether they proved the address to this service (it then counts in access lists). */
  readonly emailVerified: boolean;
}

/**
 * The active member of this team with this e-mail (compared lower-cased, as users' addresses are
 * stored), if any. A user of another team, or a deactivated one, is no member here.
 */
export async function findTeamMemberByEmail(
  db: SqlExecutor,
  teamId: number,
  email: string,
): Promise<TeamMemberByEmail | undefined> {
  const { rows } = await db.executeSql<{
    id: number | string;
    team_id: number | string;
    email: string;
    email_verified: boolean;
  }>(
    `SELECT id, team_id, email, email_verified_at IS NOT NULL AS email_verified FROM users
     WHERE email = $1 AND team_id = $2 AND is_active LIMIT 1`,
    [email.trim().toLowerCase(), teamId],
  );
  const [row] = rows;
  return row === undefined
    ? undefined
    : {
        userId: Number(row.id),
        teamId: Number(row.team_id),
        email: String(row.email),
        emailVerified: row.email_verified === true,
      };
}

/**
 * Locks the team's row until the transaction ends: every change of its members (roles, removals,
 * joins) takes this lock first, so they happen one at a time and the one-owner rule holds.
 * False when there is no such team.
 */
export async function lockTeam(db: Database, teamId: number): Promise<boolean> {
  const rows = await queryRows<{ id: number }>(
    db,
    sql`SELECT id FROM ${teams} WHERE id = ${teamId} FOR UPDATE`,
  );
  return rows.length > 0;
}

/** Sets a member's role; undefined when the user is not in the team. */
export async function setMemberRole(
  db: Database,
  teamId: number,
  userId: number,
  role: TeamRole,
): Promise<TeamMember | undefined> {
  const [row] = await db
    .update(users)
    .set({ role, updatedAt: sql`now()` })
    .where(and(eq(users.id, userId), eq(users.teamId, teamId)))
    .returning(memberColumns);
  return row === undefined ? undefined : asMember(row);
}

/** Records the team's owner (teams.owner_user_id); the users' roles are set separately. */
export async function setTeamOwner(db: Database, teamId: number, userId: number): Promise<void> {
  await db.update(teams).set({ ownerUserId: userId, updatedAt: sql`now()` }).where(eq(teams.id, teamId));
}

/**
 * Puts a user in a team with a role, as of now. The e-mail is not proven by it: the invitation's
 * code is shown to whoever invited, so it proves only that they chose this address.
 */
export async function joinTeam(
  db: Database,
  userId: number,
  teamId: number,
  role: InvitedRole,
): Promise<UserRow | undefined> {
  const [row] = await db
    .update(users)
    .set({
      teamId,
      role,
      joinedAt: sql`now()`,
      updatedAt: sql`now()`,
    })
    .where(eq(users.id, userId))
    .returning();
  return row;
}

/** What a team holds besides one user: its other members, documents and connectors (counted). */
export async function teamHoldings(
  db: Database,
  teamId: number,
  exceptUserId: number,
): Promise<{ otherMembers: number; documents: number; connectors: number }> {
  const [row] = await queryRows<{
    other_members: number | string;
    documents: number | string;
    connectors: number | string;
  }>(
    db,
    sql`SELECT
      (SELECT count(*) FROM users WHERE team_id = ${teamId} AND id <> ${exceptUserId}) AS other_members,
      (SELECT count(*) FROM documents WHERE team_id = ${teamId}) AS documents,
      (SELECT count(*) FROM connectors WHERE team_id = ${teamId}) AS connectors`,
  );
  return {
    otherMembers: Number(row?.other_members ?? 0),
    documents: Number(row?.documents ?? 0),
    connectors: Number(row?.connectors ?? 0),
  };
}

/**
 * Deletes a team that nobody is in any more, with what cascades from it (its vector store,
 * invitations, index jobs, access lists). Refused by the database while a user is still in it.
 */
export async function deleteEmptyTeam(db: Database, teamId: number): Promise<void> {
  await db.delete(teams).where(eq(teams.id, teamId));
}

/**
 * Who brought one of the team's documents in (`indexedBy`: null when unknown, or that user is
 * gone) and whether `reader` may open it; undefined when the team has no such document.
 */
export async function findDocumentIndexer(
  connection: SqlExecutor,
  reader: Reader,
  documentId: number,
): Promise<{ indexedBy: number | null; readable: boolean } | undefined> {
  const values: unknown[] = [documentId, reader.teamId];
  const readable = readableDocumentCondition('d', reader, values);
  const { rows } = await connection.executeSql<{ indexed_by: number | string | null; readable: boolean }>(
    `SELECT d.indexed_by, ${readable} AS readable FROM documents AS d WHERE d.id = $1 AND d.team_id = $2`,
    values,
  );
  const row = rows[0];
  if (row === undefined) return undefined;
  return {
    indexedBy: row.indexed_by === null ? null : Number(row.indexed_by),
    readable: row.readable === true,
  };
}

/**
 * A member's private uploads, as a condition on `documents AS d` beside `access_lists AS a`:
 * source `upload`, brought in by them, with an access list that is not team-wide.
 */
function privateUploadsOf(teamId: number, userId: number) {
  return sql`a.id = d.access_list_id AND d.team_id = ${teamId} AND d.source = 'upload'
    AND d.indexed_by = ${userId} AND NOT a.team`;
}

/** A member's private uploads (`privateUploadsOf`), with their chunk counts. */
export async function listPrivateUploads(
  db: Database,
  teamId: number,
  userId: number,
): Promise<{ id: number; chunkCount: number }[]> {
  const rows = await queryRows<{ id: number | string; chunk_count: number | string }>(
    db,
    sql`SELECT d.id, d.chunk_count FROM documents AS d, access_lists AS a WHERE ${privateUploadsOf(teamId, userId)}`,
  );
  return rows.map((row) => ({ id: Number(row.id), chunkCount: Number(row.chunk_count) }));
}

/**
 * Deletes a member's private uploads (`privateUploadsOf`) with whatever chunks they still have;
 * answers how many chunks went.
 */
export async function deletePrivateUploads(db: Database, teamId: number, userId: number): Promise<number> {
  const rows = await queryRows<{ chunk_count: number | string }>(
    db,
    sql`DELETE FROM documents AS d USING access_lists AS a WHERE ${privateUploadsOf(teamId, userId)}
      RETURNING d.chunk_count`,
  );
  return rows.reduce((sum, row) => sum + Number(row.chunk_count), 0);
}

/**
 * Fails a member's unfinished index jobs and drops the source tokens sealed into them (a Drive
 * job carries its requester's Google token), so nothing goes on indexing with a leaver's access.
 */
export async function cancelMemberJobs(
  db: Database,
  teamId: number,
  userId: number,
  error: string,
): Promise<void> {
  await db.execute(
    sql`UPDATE index_jobs SET status = 'failed', error = ${error}, secrets_sealed = NULL,
        finished_at = now(), updated_at = now()
      WHERE team_id = ${teamId} AND requested_by = ${userId} AND status IN ('queued', 'running')`,
  );
}

/**
 * Deletes a member who is not the team's owner: their bearer tokens, provider accounts, chats and
 * mailed codes go with the row (foreign keys cascade); documents and jobs they brought in stay,
 * no longer naming them. False when the user is not such a member.
 */
export async function deleteMember(db: Database, teamId: number, userId: number): Promise<boolean> {
  const rows = await db
    .delete(users)
    .where(and(eq(users.id, userId), eq(users.teamId, teamId), ne(users.role, 'owner')))
    .returning({ id: users.id });
  return rows.length > 0;
}

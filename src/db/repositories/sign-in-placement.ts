import { and, desc, eq, gt, isNull } from 'drizzle-orm';
import type { Database } from '../client.js';
import { scimUsers, teamInvitations, teamSignInDomains } from '../schema.js';
import type { InvitationRow } from './teams.js';

// What a single sign-on reads and writes to place a person in a team (services/sign-in-with-oidc.ts):
// the directory's record of them, their open invitations, the team claiming their domain.

/** A person as a team's directory provisioned them (SCIM), whatever its state. */
export type ProvisionedPerson = typeof scimUsers.$inferSelect;

/** The directory's record of this address (`user_name`, lower-cased like users' e-mails), if any. */
export async function findProvisionedByEmail(
  db: Database,
  email: string,
): Promise<ProvisionedPerson | undefined> {
  const [row] = await db.select().from(scimUsers).where(eq(scimUsers.userName, email)).limit(1);
  return row;
}

/** The directory records linked to this account (normally one). */
export async function findProvisionedByUser(db: Database, userId: number): Promise<ProvisionedPerson[]> {
  return db.select().from(scimUsers).where(eq(scimUsers.userId, userId));
}

/**
 * Links a member-to-be to the account that just signed in as them; false when the record was
 * linked (or turned off, or deleted) meanwhile.
 */
export async function linkProvisionedPerson(db: Database, id: string, userId: number): Promise<boolean> {
  const rows = await db
    .update(scimUsers)
    .set({ userId })
    .where(
      and(
        eq(scimUsers.id, id),
        isNull(scimUsers.userId),
        eq(scimUsers.active, true),
        isNull(scimUsers.deletedAt),
      ),
    )
    .returning({ id: scimUsers.id });
  return rows.length > 0;
}

/** The address's open invitations (not accepted, withdrawn or expired at `now`), newest first. */
export async function listOpenInvitationsForEmail(
  db: Database,
  email: string,
  now: Date,
): Promise<InvitationRow[]> {
  return db
    .select()
    .from(teamInvitations)
    .where(
      and(
        eq(teamInvitations.email, email),
        isNull(teamInvitations.acceptedAt),
        isNull(teamInvitations.withdrawnAt),
        gt(teamInvitations.expiresAt, now),
      ),
    )
    .orderBy(desc(teamInvitations.createdAt), desc(teamInvitations.id));
}

/** The team that claims this sign-in domain (lower-cased, no trailing dot), if one does. */
export async function findTeamClaimingDomain(db: Database, domain: string): Promise<number | undefined> {
  const [row] = await db
    .select({ teamId: teamSignInDomains.teamId })
    .from(teamSignInDomains)
    .where(eq(teamSignInDomains.domain, domain))
    .limit(1);
  return row?.teamId;
}

import type { DatabaseKind } from '../db/client.js';
import type { UserRow } from '../db/repositories/users.js';
import type { Repositories } from '../db/repositories.js';
import { createOwnTeam } from './own-team.js';

/** The account after a takeover, and how many chunks of its creator's private uploads went. */
export interface SettledAccount {
  readonly user: UserRow;
  readonly deletedChunks: number;
}

/**
 * Leaves nobody a way to the person who just took over an unverified account (see
 * `claimUnverifiedUser`, which runs first in the same transaction). Whoever made the account may
 * have set up its team to keep reading what the real owner brings in: invited accomplices, or
 * open invitations for them. So the creator's chats go (their questions, not the owner's), and:
 * - in a team with nobody else in it, its open invitations are withdrawn and the owner stays;
 * - in a team with other members, the owner starts a team of their own, and that team keeps its
 *   members and what they shared (its longest-standing admin, else member, becomes its owner);
 *   the account's private uploads there, its unfinished index jobs and its open invitations go,
 *   as when a member leaves.
 */
export async function settleClaimedAccount(
  tx: Repositories,
  databaseKind: DatabaseKind,
  user: UserRow,
  now: Date,
): Promise<SettledAccount> {
  await tx.chats.deleteAllUserChats(user.id);
  const teamId = user.teamId;
  if (teamId === null) return { user: await createOwnTeam(tx, databaseKind, user), deletedChunks: 0 };
  await tx.teams.lockTeam(teamId);
  const holdings = await tx.teams.teamHoldings(teamId, user.id);
  if (holdings.otherMembers === 0) {
    await tx.teams.withdrawTeamInvitations(teamId, now);
    return { user, deletedChunks: 0 };
  }
  await tx.teams.cancelMemberJobs(
    teamId,
    user.id,
    'The account that asked for it was taken over by the owner of its e-mail',
  );
  const deletedChunks = await tx.teams.deletePrivateUploads(teamId, user.id);
  // The account leaves the team: invitations its creator sent there go, as when a member leaves.
  await tx.teams.withdrawInvitationsBy(teamId, user.id, now);
  if (user.role === 'owner') {
    const others = (await tx.teams.listTeamMembers(teamId)).filter((member) => member.userId !== user.id);
    const successor = others.find((member) => member.role === 'admin') ?? others[0];
    if (successor !== undefined) {
      await tx.teams.setMemberRole(teamId, successor.userId, 'owner');
      await tx.teams.setTeamOwner(teamId, successor.userId);
    }
  }
  return { user: await createOwnTeam(tx, databaseKind, user), deletedChunks };
}

import type { Database, DatabaseKind } from '../db/client.js';
import { deleteAllUserChats } from '../db/repositories/chats.js';
import {
  cancelMemberJobs,
  deletePrivateUploads,
  listTeamMembers,
  lockTeam,
  setMemberRole,
  setTeamOwner,
  teamHoldings,
  withdrawTeamInvitations,
} from '../db/repositories/teams.js';
import type { UserRow } from '../db/repositories/users.js';
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
 *   the account's private uploads there and its unfinished index jobs go, as when a member leaves.
 */
export async function settleClaimedAccount(
  tx: Database,
  databaseKind: DatabaseKind,
  user: UserRow,
  now: Date,
): Promise<SettledAccount> {
  await deleteAllUserChats(tx, user.id);
  const teamId = user.teamId;
  if (teamId === null) return { user: await createOwnTeam(tx, databaseKind, user), deletedChunks: 0 };
  await lockTeam(tx, teamId);
  const holdings = await teamHoldings(tx, teamId, user.id);
  if (holdings.otherMembers === 0) {
    await withdrawTeamInvitations(tx, teamId, now);
    return { user, deletedChunks: 0 };
  }
  await cancelMemberJobs(
    tx,
    teamId,
    user.id,
    'The account that asked for it was taken over by the owner of its e-mail',
  );
  const deletedChunks = await deletePrivateUploads(tx, teamId, user.id);
  if (user.role === 'owner') {
    const others = (await listTeamMembers(tx, teamId)).filter((member) => member.userId !== user.id);
    const successor = others.find((member) => member.role === 'admin') ?? others[0];
    if (successor !== undefined) {
      await setMemberRole(tx, teamId, successor.userId, 'owner');
      await setTeamOwner(tx, teamId, successor.userId);
    }
  }
  return { user: await createOwnTeam(tx, databaseKind, user), deletedChunks };
}

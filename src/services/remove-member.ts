import { type Caller, managesTeam } from '../caller.js';
import type { TeamMember } from '../db/repositories/teams.js';
import { ServiceError } from '../errors.js';
import type { ServiceDependencies } from './dependencies.js';
import { parseSerialId } from './serial-id.js';

const MEMBER_NOT_FOUND = 'Member not found';

/**
 * Removes a member from the caller's team; a member removing themselves leaves it. Owners and
 * admins remove members and admins; anyone may leave; the owner is never removed (403) and cannot
 * leave (409) before handing ownership to another member.
 *
 * Removal deletes the user: their bearer tokens at once (this process forgets them now; others
 * within AUTH_CACHE_TTL_SECONDS, their cache finding no token), their provider accounts, chats and
 * mailed codes (cascading from the user row), their private uploads (uploads they brought in whose
 * access list is not team-wide), and their unfinished index jobs are failed with the tokens sealed
 * in them dropped, and the open invitations they made are withdrawn. What they shared with the
 * team stays: team-wide uploads, and Drive files, which keep the access lists their source gave
 * them. A removed person who is invited again registers afresh.
 */
export async function removeMember(deps: ServiceDependencies, caller: Caller, userId: string): Promise<void> {
  const targetId = parseSerialId(userId);
  if (targetId === undefined) throw new ServiceError('not_found', MEMBER_NOT_FOUND);
  const leaving = targetId === caller.userId;
  if (!leaving && !managesTeam(caller)) {
    throw new ServiceError('forbidden', "Only the team's owner and admins may remove members");
  }
  const target = await deps.data.teams.findTeamMember(caller.teamId, targetId);
  if (target === undefined) throw new ServiceError('not_found', MEMBER_NOT_FOUND);
  assertRemovable(target, leaving);

  // Locked out first: nothing the member sends from here on is served.
  await deps.data.accessTokens.deleteUserAccessTokens(targetId);
  deps.callers.forgetUser(targetId);
  // A big upload's chunks go in short statements (PGlite's one thread), before the transaction.
  for (const upload of await deps.data.teams.listPrivateUploads(caller.teamId, targetId)) {
    await deps.data.documents.deleteChunksInBatches(upload.id);
  }
  const chunks = await deps.data.transaction(async (tx) => {
    await tx.teams.lockTeam(caller.teamId);
    // Roles may have changed since the checks above (ownership handed over, the caller demoted).
    if (!leaving) {
      const actor = await tx.teams.findTeamMember(caller.teamId, caller.userId);
      if (actor === undefined || !managesTeam(actor)) {
        throw new ServiceError('forbidden', "Only the team's owner and admins may remove members");
      }
    }
    const current = await tx.teams.findTeamMember(caller.teamId, targetId);
    if (current === undefined) throw new ServiceError('not_found', MEMBER_NOT_FOUND);
    assertRemovable(current, leaving);
    await tx.teams.cancelMemberJobs(caller.teamId, targetId, 'The member who asked for it left the team');
    // Before the row goes (invited_by would read null): a code they kept back must not let anyone in.
    await tx.teams.withdrawInvitationsBy(caller.teamId, targetId, deps.now());
    const deletedChunks = await tx.teams.deletePrivateUploads(caller.teamId, targetId);
    if (!(await tx.teams.deleteMember(caller.teamId, targetId))) {
      throw new ServiceError('not_found', MEMBER_NOT_FOUND);
    }
    return deletedChunks;
  });
  // A token issued while the uploads were deleted went with the user row; forget it here too.
  deps.callers.forgetUser(targetId);
  deps.storage.noteDeleted(chunks);
}

function assertRemovable(target: TeamMember, leaving: boolean): void {
  if (target.role !== 'owner') return;
  if (leaving) {
    throw new ServiceError(
      'conflict',
      'The owner cannot leave the team: first give another member the role "owner" (PATCH /v1/teams/members/{user_id})',
    );
  }
  throw new ServiceError('forbidden', "The team's owner cannot be removed");
}

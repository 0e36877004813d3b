import type { TeamMember } from '../db/repositories/teams.js';
import { ServiceError } from '../errors.js';
import type { ServiceDependencies, TransactionData } from './dependencies.js';

/** One member leaving a team, whoever decided it (an owner or admin, themselves, the team's directory). */
export interface MemberRemoval {
  readonly teamId: number;
  readonly userId: number;
  /** Why their unfinished index jobs fail. */
  readonly jobsFailWith: string;
  /**
   * Runs in the removal's transaction with the team locked, before anything is deleted: it sees
   * the member as they are now (undefined when no longer in the team; roles may have changed
   * since the caller's checks), throws to refuse, and may write what must commit with the removal.
   */
  readonly confirm: (data: TransactionData, member: TeamMember | undefined) => Promise<void>;
}

/**
 * Removes a member from their team, without any check of who asks (the callers do that): the user
 * is deleted. Their bearer tokens go at once (this process forgets them now; others within
 * AUTH_CACHE_TTL_SECONDS, their cache finding no token), their provider accounts, chats and mailed
 * codes (cascading from the user row), their private uploads (uploads they brought in whose
 * access list is not team-wide); their unfinished index jobs are failed with the tokens sealed in
 * them dropped, and the open invitations they made are withdrawn. What they shared with the team
 * stays: team-wide uploads, and Drive files, which keep the access lists their source gave them.
 * The owner is never removed (the database refuses it: `not_found`). Answers false, with nothing
 * removed, when `confirm` found them no longer in the team.
 */
export async function removeTeamMember(deps: ServiceDependencies, removal: MemberRemoval): Promise<boolean> {
  const { teamId, userId } = removal;
  // Locked out first: nothing the member sends from here on is served.
  await deps.data.accessTokens.deleteUserAccessTokens(userId);
  deps.callers.forgetUser(userId);
  // A big upload's chunks go in short statements (PGlite's one thread), before the transaction.
  for (const upload of await deps.data.teams.listPrivateUploads(teamId, userId)) {
    await deps.data.documents.deleteChunksInBatches(upload.id);
  }
  const chunks = await deps.data.transaction(async (tx) => {
    await tx.teams.lockTeam(teamId);
    const current = await tx.teams.findTeamMember(teamId, userId);
    await removal.confirm(tx, current);
    if (current === undefined) return undefined;
    await tx.teams.cancelMemberJobs(teamId, userId, removal.jobsFailWith);
    // Before the row goes (invited_by would read null): a code they kept back must not let anyone in.
    await tx.teams.withdrawInvitationsBy(teamId, userId, deps.now());
    const deletedChunks = await tx.teams.deletePrivateUploads(teamId, userId);
    if (!(await tx.teams.deleteMember(teamId, userId))) {
      throw new ServiceError('not_found', 'Member not found');
    }
    return deletedChunks;
  });
  // A token issued while the uploads were deleted went with the user row; forget it here too.
  deps.callers.forgetUser(userId);
  if (chunks === undefined) return false;
  deps.storage.noteDeleted(chunks);
  return true;
}

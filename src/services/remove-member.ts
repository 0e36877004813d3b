import { type Caller, managesTeam } from '../caller.js';
import type { TeamMember } from '../db/repositories/teams.js';
import { ServiceError } from '../errors.js';
import type { ServiceDependencies } from './dependencies.js';
import { removeTeamMember } from './member-removal.js';
import { parseSerialId } from './serial-id.js';

const MEMBER_NOT_FOUND = 'Member not found';

/**
 * Removes a member from the caller's team; a member removing themselves leaves it. Owners and
 * admins remove members and admins; anyone may leave; the owner is never removed (403) and cannot
 * leave (409) before handing ownership to another member.
 *
 * Removal deletes the user (see `removeTeamMember`: tokens at once, chats, private uploads; what
 * they shared with the team stays). A removed person who is invited again registers afresh.
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

  await removeTeamMember(deps, {
    teamId: caller.teamId,
    userId: targetId,
    jobsFailWith: 'The member who asked for it left the team',
    confirm: async (tx, current) => {
      // Roles may have changed since the checks above (ownership handed over, the caller demoted).
      if (!leaving) {
        const actor = await tx.teams.findTeamMember(caller.teamId, caller.userId);
        if (actor === undefined || !managesTeam(actor)) {
          throw new ServiceError('forbidden', "Only the team's owner and admins may remove members");
        }
      }
      if (current === undefined) throw new ServiceError('not_found', MEMBER_NOT_FOUND);
      assertRemovable(current, leaving);
    },
  });
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

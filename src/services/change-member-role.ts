import { type Caller, managesTeam, type TeamRole } from '../caller.js';
import type { TeamMember } from '../db/repositories/teams.js';
import { ServiceError } from '../errors.js';
import type { ServiceDependencies } from './dependencies.js';
import { memberView } from './list-members.js';
import { parseSerialId } from './serial-id.js';

const ROLES: readonly TeamRole[] = ['owner', 'admin', 'member'];

const MEMBER_NOT_FOUND = 'Member not found';

/**
 * Changes a member's role (owners and admins only). A team keeps exactly one owner: only the owner
 * gives `owner`, to another member, and becomes an admin in the same transaction (the team's
 * `owner_user_id` follows); the owner's role changes no other way (409 for the owner, who must hand
 * ownership over first; 403 for an admin). Admins make and unmake admins and members, themselves
 * included; an admin made a member loses the open invitations they made (withdrawn in the same
 * transaction). Roles are read afresh under the team's lock, so a caller demoted a moment ago cannot
 * act on a cached role. Answers the member as now stored.
 */
export async function changeMemberRole(
  deps: ServiceDependencies,
  caller: Caller,
  userId: string,
  role: TeamRole,
) {
  if (!managesTeam(caller)) {
    throw new ServiceError('forbidden', "Only the team's owner and admins may change roles");
  }
  if (!ROLES.includes(role)) {
    throw ServiceError.validation([
      {
        type: 'enum',
        loc: ['body', 'role'],
        msg: "Input should be 'owner', 'admin' or 'member'",
        input: role,
      },
    ]);
  }
  const targetId = parseSerialId(userId);
  if (targetId === undefined) throw new ServiceError('not_found', MEMBER_NOT_FOUND);
  const { member, changed } = await deps.data.transaction(async (tx) => {
    await tx.teams.lockTeam(caller.teamId);
    const actor = await tx.teams.findTeamMember(caller.teamId, caller.userId);
    if (actor === undefined || !managesTeam(actor)) {
      throw new ServiceError('forbidden', "Only the team's owner and admins may change roles");
    }
    const target = await tx.teams.findTeamMember(caller.teamId, targetId);
    if (target === undefined) throw new ServiceError('not_found', MEMBER_NOT_FOUND);
    if (target.role === role) return { member: target, changed: [] as number[] };
    if (role === 'owner') {
      if (actor.role !== 'owner') {
        throw new ServiceError('forbidden', "Only the team's owner may hand ownership to another member");
      }
      await tx.teams.setMemberRole(caller.teamId, actor.userId, 'admin');
      const owner = await tx.teams.setMemberRole(caller.teamId, target.userId, 'owner');
      await tx.teams.setTeamOwner(caller.teamId, target.userId);
      return { member: owner ?? failVanished(), changed: [actor.userId, target.userId] };
    }
    if (target.role === 'owner') {
      if (target.userId === actor.userId) {
        throw new ServiceError(
          'conflict',
          'A team keeps one owner: to step down, give another member the role "owner" (you then become an admin)',
        );
      }
      throw new ServiceError(
        'forbidden',
        "The team's owner's role changes only when they hand ownership over",
      );
    }
    const updated = await tx.teams.setMemberRole(caller.teamId, target.userId, role);
    // A member may not invite: what they invited as an admin goes (a former owner, now admin, keeps theirs).
    if (role === 'member') await tx.teams.withdrawInvitationsBy(caller.teamId, target.userId, deps.now());
    return { member: updated ?? failVanished(), changed: [target.userId] };
  });
  // Cached callers carry the role: this process reads it afresh at once, others within the cache's TTL.
  for (const id of changed) deps.callers.forgetUser(id);
  return memberView(member);
}

function failVanished(): TeamMember {
  throw new Error('A member locked under the team vanished');
}

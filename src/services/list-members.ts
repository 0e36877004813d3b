import type { Caller } from '../caller.js';
import type { TeamMember } from '../db/repositories/teams.js';
import type { ServiceDependencies } from './dependencies.js';

/** A member as the API shows them. */
export function memberView(member: TeamMember) {
  return {
    user_id: member.userId,
    email: member.email,
    name: member.name,
    role: member.role,
    joined_at: member.joinedAt.toISOString(),
  };
}

/** Everyone in the caller's team with their roles (any member may ask), longest-standing first. */
export async function listMembers(deps: ServiceDependencies, caller: Caller) {
  const members = await deps.data.teams.listTeamMembers(caller.teamId);
  return { members: members.map(memberView) };
}

import type { CurrentUser, TeamMember, TeamRole } from '../api/types';

const ROLE_WORDS: Record<TeamRole, string> = { owner: 'owner', admin: 'admin', member: 'member' };

/** A role as the page says it; a role this app does not know, as the service wrote it. */
export function roleWord(role: string): string {
  return ROLE_WORDS[role as TeamRole] ?? role;
}

/** Owners and admins invite, change roles and remove members; others see the list. */
export function managesTeam(role: string | undefined): boolean {
  return role === 'owner' || role === 'admin';
}

/**
 * The caller's role: as the member list has it (the newest word, should it have changed since
 * signing in), else as GET /v1/users/me said it.
 */
export function callerRole(
  user: CurrentUser,
  members: readonly TeamMember[] | undefined,
): string | undefined {
  return members?.find((member) => member.user_id === user.id)?.role ?? user.role;
}

/** The address an invitation's code opens: this app's join page. */
export function invitationLink(origin: string, code: string): string {
  return `${origin}/join?${new URLSearchParams({ invitation: code }).toString()}`;
}

/**
 * Whether the caller may change this member's role or remove them: a manager, not the owner (a team
 * keeps its one owner), not oneself (another manager does that).
 */
export function canManageMember(callerId: number, role: string | undefined, member: TeamMember): boolean {
  return managesTeam(role) && member.role !== 'owner' && member.user_id !== callerId;
}

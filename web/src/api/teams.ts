import { requestJson, requestNothing } from './http';
import type { Invitation, NewInvitation, TeamMember, TeamRole } from './types';

/** The roles an invitation or a role change may give: a team keeps its one owner. */
export type AssignableRole = Exclude<TeamRole, 'owner'>;

function withSignal(signal: AbortSignal | undefined): { signal?: AbortSignal } {
  return signal === undefined ? {} : { signal };
}

/** GET /v1/teams/members: everyone in the caller's team. */
export async function listMembers(signal?: AbortSignal): Promise<TeamMember[]> {
  const answer = await requestJson<{ members: TeamMember[] }>('GET', '/v1/teams/members', withSignal(signal));
  return answer.members;
}

/** PATCH /v1/teams/members/{user_id} (owner or admin): a member's new role. */
export function changeMemberRole(userId: number, role: AssignableRole): Promise<void> {
  return requestNothing('PATCH', `/v1/teams/members/${userId}`, { body: { role } });
}

/** DELETE /v1/teams/members/{user_id} (owner or admin): the member is out of the team at once. */
export function removeMember(userId: number): Promise<void> {
  return requestNothing('DELETE', `/v1/teams/members/${userId}`);
}

/** GET /v1/teams/invitations (owner or admin): the open invitations (not used, withdrawn or expired). */
export async function listInvitations(signal?: AbortSignal): Promise<Invitation[]> {
  const answer = await requestJson<{ invitations: Invitation[] }>(
    'GET',
    '/v1/teams/invitations',
    withSignal(signal),
  );
  return answer.invitations;
}

/**
 * POST /v1/teams/invitations (owner or admin): an invitation for that e-mail, with the code its link
 * carries (shown once: the list never has it). Valid for 7 days.
 */
export function inviteMember(email: string, role: AssignableRole): Promise<NewInvitation> {
  return requestJson<NewInvitation>('POST', '/v1/teams/invitations', { body: { email, role } });
}

/** DELETE /v1/teams/invitations/{invitation_id}: its link no longer works. */
export function withdrawInvitation(invitationId: number | string): Promise<void> {
  return requestNothing('DELETE', `/v1/teams/invitations/${encodeURIComponent(String(invitationId))}`);
}

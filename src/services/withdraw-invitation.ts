import { type Caller, managesTeam } from '../caller.js';
import { ServiceError } from '../errors.js';
import { isUuid } from '../uuid.js';
import type { ServiceDependencies } from './dependencies.js';

/**
 * Withdraws one of the team's invitations: its code no longer registers anyone. Withdrawing one
 * again, or one that expired, changes nothing and succeeds; one already used is a conflict (the
 * person is a member: remove them instead); another team's, or an id that names none, is 404.
 */
export async function withdrawInvitation(
  deps: ServiceDependencies,
  caller: Caller,
  id: string,
): Promise<void> {
  if (!managesTeam(caller)) {
    throw new ServiceError('forbidden', "Only the team's owner and admins may withdraw invitations");
  }
  if (!isUuid(id)) throw new ServiceError('not_found', 'Invitation not found');
  const outcome = await deps.data.teams.withdrawInvitation(caller.teamId, id.toLowerCase(), deps.now());
  if (outcome === 'not_found') throw new ServiceError('not_found', 'Invitation not found');
  if (outcome === 'accepted') {
    throw new ServiceError(
      'conflict',
      'Invitation already used: its member is in the team (remove them with DELETE /v1/teams/members/{user_id})',
    );
  }
}

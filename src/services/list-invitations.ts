import { type Caller, managesTeam } from '../caller.js';
import { ServiceError } from '../errors.js';
import type { ServiceDependencies } from './dependencies.js';

/** The team's open invitations (not used, withdrawn or expired), newest first; never their codes. */
export async function listInvitations(deps: ServiceDependencies, caller: Caller) {
  if (!managesTeam(caller)) {
    throw new ServiceError('forbidden', "Only the team's owner and admins may see the invitations");
  }
  const rows = await deps.data.teams.listOpenInvitations(caller.teamId, deps.now());
  return {
    invitations: rows.map((row) => ({
      invitation_id: row.id,
      email: row.email,
      role: row.role,
      expires_at: row.expiresAt.toISOString(),
      created_at: row.createdAt.toISOString(),
    })),
  };
}

import { type Caller, teamRoleOf } from '../caller.js';
import { ServiceError } from '../errors.js';
import type { ServiceDependencies } from './dependencies.js';
import { vectorStoreView } from './views.js';

/**
 * The caller's `user_context` (spec 2.1), as clients send it back in drive and chat requests, with
 * the caller's `role` in the team (owner, admin or member) and whether their address is proven
 * (`email_verified`) besides the spec's fields.
 */
export async function getUserContext(deps: ServiceDependencies, caller: Caller) {
  const user = await deps.data.users.findUserById(caller.userId);
  const store = await deps.data.users.findVectorStore(caller.teamId);
  if (user === undefined || store === undefined) throw new ServiceError('not_found', 'User not found');
  const rows = await deps.data.connectors.listTeamConnectorRefs(caller.teamId);
  const bySlug = new Map<string, number[]>();
  for (const row of rows) bySlug.set(row.slug, [...(bySlug.get(row.slug) ?? []), row.id]);
  return {
    id: user.id,
    email: user.email,
    updated_at: user.updatedAt.toISOString(),
    is_active: user.isActive,
    team_id: caller.teamId,
    created_at: user.createdAt.toISOString(),
    connectors: [...bySlug].map(([name, ids]) => ({ name, id: ids })),
    vector_store: vectorStoreView(store),
    role: teamRoleOf(user.role),
    email_verified: user.emailVerifiedAt !== null,
  };
}

import type { ServiceDependencies } from './dependencies.js';
import type { ScimClient } from './scim-authenticate.js';
import { findTeamScimGroup, forgetGroupsOf, scimGroupNotFound } from './scim-group-membership.js';

/** Deletes a group (DELETE /Groups/{id}): its members no longer match documents shared with it. */
export async function scimDeleteGroup(
  deps: ServiceDependencies,
  client: ScimClient,
  id: string,
): Promise<void> {
  const group = await findTeamScimGroup(deps, client, id);
  const members = await deps.data.scim.linkedUsersOfGroup(group.id);
  if (!(await deps.data.scim.deleteScimGroup(client.teamId, group.id))) throw scimGroupNotFound();
  forgetGroupsOf(deps, members);
}

import type { ServiceDependencies } from './dependencies.js';
import type { ScimClient } from './scim-authenticate.js';
import { findTeamScimGroup } from './scim-group-membership.js';
import { patchScimGroup } from './scim-patch.js';
import { saveScimGroup } from './scim-replace-group.js';

/**
 * Changes a group (PATCH /Groups/{id}) with the operations Okta and Entra ID send: members added
 * or removed by `value` lists, Entra ID's `remove` of `members[value eq "<id>"]`, a new name.
 * Members' access to documents shared with the group follows at once.
 */
export async function scimPatchGroup(
  deps: ServiceDependencies,
  client: ScimClient,
  id: string,
  body: unknown,
) {
  const group = await findTeamScimGroup(deps, client, id);
  return saveScimGroup(deps, client, group.id, (current) => patchScimGroup(current, body));
}

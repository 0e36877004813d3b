import type { ServiceDependencies } from './dependencies.js';
import type { ScimClient } from './scim-authenticate.js';
import { findTeamScimGroup, groupResourceOf } from './scim-group-membership.js';
import { excludes } from './scim-resources.js';

/** GET /Groups/{id}: one of the team's groups with its members (unless `excludedAttributes=members`). */
export async function scimGetGroup(
  deps: ServiceDependencies,
  client: ScimClient,
  id: string,
  query: { readonly excludedAttributes?: string | undefined } = {},
) {
  const group = await findTeamScimGroup(deps, client, id);
  return groupResourceOf(deps, group, !excludes(query.excludedAttributes, 'members'));
}

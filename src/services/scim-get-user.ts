import type { ScimUserRow } from '../db/repositories/scim.js';
import type { ServiceDependencies } from './dependencies.js';
import type { ScimClient } from './scim-authenticate.js';
import { scimBaseUrl, scimId, scimUserResource } from './scim-resources.js';
import { scimUserNotFound } from './scim-user-lifecycle.js';

/** One of the team's provisioned people (not deleted); 404 for another team's. */
export async function findTeamScimUser(
  deps: ServiceDependencies,
  client: ScimClient,
  id: string,
): Promise<ScimUserRow> {
  const userId = scimId(id);
  const row = userId === undefined ? undefined : await deps.data.scim.findScimUser(client.teamId, userId);
  if (row === undefined) throw scimUserNotFound();
  return row;
}

/** GET /Users/{id}. */
export async function scimGetUser(deps: ServiceDependencies, client: ScimClient, id: string) {
  return scimUserResource(await findTeamScimUser(deps, client, id), scimBaseUrl(deps.config.publicUrl));
}

import type { ServiceDependencies } from './dependencies.js';
import { readScimUser } from './scim-attributes.js';
import type { ScimClient } from './scim-authenticate.js';
import { findTeamScimUser } from './scim-get-user.js';
import { scimBaseUrl, scimUserResource } from './scim-resources.js';
import { saveScimUser } from './scim-user-lifecycle.js';

/**
 * Replaces a person's attributes (PUT /Users/{id}): those absent are cleared, `active` absent is
 * true. `active: false` ends a linked member's membership at once (see saveScimUser).
 */
export async function scimReplaceUser(
  deps: ServiceDependencies,
  client: ScimClient,
  id: string,
  body: unknown,
) {
  const current = await findTeamScimUser(deps, client, id);
  const saved = await saveScimUser(deps, client, current, readScimUser(body));
  return scimUserResource(saved, scimBaseUrl(deps.config.publicUrl));
}

import type { ServiceDependencies } from './dependencies.js';
import type { ScimClient } from './scim-authenticate.js';
import { findTeamScimUser } from './scim-get-user.js';
import { patchScimUser } from './scim-patch.js';
import { scimBaseUrl, scimUserFieldsOf, scimUserResource } from './scim-resources.js';
import { saveScimUser } from './scim-user-lifecycle.js';

/**
 * Changes some of a person's attributes (PATCH /Users/{id}) with the operations Okta and Entra ID
 * send (scim-patch.ts); `active: false` ends a linked member's membership at once, `true` makes
 * them a member-to-be again (see saveScimUser).
 */
export async function scimPatchUser(
  deps: ServiceDependencies,
  client: ScimClient,
  id: string,
  body: unknown,
) {
  const current = await findTeamScimUser(deps, client, id);
  const next = patchScimUser(scimUserFieldsOf(current), body);
  const saved = await saveScimUser(deps, client, current, next);
  return scimUserResource(saved, scimBaseUrl(deps.config.publicUrl));
}

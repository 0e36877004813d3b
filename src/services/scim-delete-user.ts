import type { ServiceDependencies } from './dependencies.js';
import type { ScimClient } from './scim-authenticate.js';
import { findTeamScimUser } from './scim-get-user.js';
import { endLinkedMembership, scimUserNotFound } from './scim-user-lifecycle.js';

/**
 * Deletes a person (DELETE /Users/{id}): their linked account leaves the team at once, as a
 * removed member does (the owner's is refused: 409), they leave every group, and their row stays
 * as a tombstone that keeps them out of single sign-on until they are provisioned again.
 */
export async function scimDeleteUser(
  deps: ServiceDependencies,
  client: ScimClient,
  id: string,
): Promise<void> {
  const row = await findTeamScimUser(deps, client, id);
  const now = deps.now();
  const deleted =
    row.userId === null
      ? await deps.data.scim.markScimUserDeleted(client.teamId, row.id, now)
      : await endLinkedMembership(deps, client.teamId, row.userId, (data) =>
          data.scim.markScimUserDeleted(client.teamId, row.id, now),
        );
  if (!deleted) throw scimUserNotFound();
}

import { randomUUID } from 'node:crypto';
import type { ScimUserRow } from '../db/repositories/scim.js';
import type { ServiceDependencies } from './dependencies.js';
import { readScimUser } from './scim-attributes.js';
import type { ScimClient } from './scim-authenticate.js';
import { scimBaseUrl, scimUserResource } from './scim-resources.js';
import {
  assertNotOwner,
  endLinkedMembership,
  scimUserNotFound,
  teamAccountOf,
  userNameTaken,
} from './scim-user-lifecycle.js';

/**
 * Provisions a person (POST /Users): a member-to-be of the directory's team, whose first single
 * sign-on brings them in, or, when the team already has an account with the address, that account
 * linked. `userName` is their e-mail; one already provisioned (by any team) is a 409 `uniqueness`.
 * A deleted one's tombstone is revived in the same team, or replaced when another team's. Created
 * inactive, a linked account leaves the team at once (as `active: false` does later).
 */
export async function scimCreateUser(deps: ServiceDependencies, client: ScimClient, body: unknown) {
  const fields = readScimUser(body);
  const { teamId } = client;
  const holder = await deps.data.scim.findScimUserByUserName(fields.userName);
  if (holder !== undefined && holder.deletedAt === null) throw userNameTaken(fields.userName);
  const accountId = await teamAccountOf(deps, teamId, fields.userName);
  if (!fields.active) await assertNotOwner(deps, teamId, accountId);

  let row: ScimUserRow | undefined;
  try {
    row = await deps.data.transaction(async (data) => {
      if (holder?.teamId === teamId) {
        return data.scim.updateScimUser(teamId, holder.id, { ...fields, userId: accountId, revive: true });
      }
      if (holder !== undefined) await data.scim.purgeScimTombstone(holder.id);
      return data.scim.insertScimUser({ ...fields, id: randomUUID(), teamId, userId: accountId });
    });
  } catch (error) {
    // Provisioned by a concurrent request in between.
    if (deps.data.violatedUniqueIndex(error) !== undefined) throw userNameTaken(fields.userName);
    throw error;
  }
  if (row === undefined) throw userNameTaken(fields.userName);
  if (!row.active && row.userId !== null) {
    const created = row;
    row = await endLinkedMembership(deps, teamId, row.userId, (data) =>
      data.scim.updateScimUser(teamId, created.id, { ...fields, userId: null }),
    );
    if (row === undefined) throw scimUserNotFound();
  }
  return scimUserResource(row, scimBaseUrl(deps.config.publicUrl));
}

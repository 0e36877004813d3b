import { randomUUID } from 'node:crypto';
import type { ServiceDependencies } from './dependencies.js';
import { readScimGroup } from './scim-attributes.js';
import type { ScimClient } from './scim-authenticate.js';
import {
  assertGroupNameFree,
  forgetGroupsOf,
  groupResourceOf,
  writeGroupMembers,
} from './scim-group-membership.js';

/**
 * Creates a group of the team (POST /Groups) with its members; a display name the team's other
 * group has (in any case) is a 409 `uniqueness`. Named by an e-mail address (display name or
 * external id), it matches documents shared with that group for its members.
 */
export async function scimCreateGroup(deps: ServiceDependencies, client: ScimClient, body: unknown) {
  const fields = readScimGroup(body);
  const { teamId } = client;
  const { group, changed } = await deps.data.transaction(async (data) => {
    // One group write of a team at a time: the name check holds.
    await data.teams.lockTeam(teamId);
    await assertGroupNameFree(data, teamId, fields.displayName);
    const created = await data.scim.insertScimGroup({
      id: randomUUID(),
      teamId,
      displayName: fields.displayName,
      externalId: fields.externalId,
    });
    return { group: created, changed: await writeGroupMembers(data, teamId, created.id, [], fields) };
  });
  forgetGroupsOf(deps, changed);
  return groupResourceOf(deps, group);
}

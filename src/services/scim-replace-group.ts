import type { ServiceDependencies } from './dependencies.js';
import { readScimGroup, type ScimGroupFields } from './scim-attributes.js';
import type { ScimClient } from './scim-authenticate.js';
import {
  assertGroupNameFree,
  findTeamScimGroup,
  forgetGroupsOf,
  groupResourceOf,
  scimGroupNotFound,
  writeGroupMembers,
} from './scim-group-membership.js';

/** A group's new name and members written in one transaction; answers the group as stored. */
export async function saveScimGroup(
  deps: ServiceDependencies,
  client: ScimClient,
  groupId: string,
  nextOf: (current: ScimGroupFields) => ScimGroupFields,
) {
  const { teamId } = client;
  const { group, changed } = await deps.data.transaction(async (data) => {
    await data.teams.lockTeam(teamId);
    const row = await data.scim.findScimGroup(teamId, groupId);
    if (row === undefined) throw scimGroupNotFound();
    const currentIds = (await data.scim.listScimGroupMembers([row.id])).map((member) => member.scimUserId);
    const next = nextOf({ displayName: row.displayName, externalId: row.externalId, memberIds: currentIds });
    if (next.displayName !== row.displayName)
      await assertGroupNameFree(data, teamId, next.displayName, row.id);
    const renamed = next.displayName !== row.displayName || next.externalId !== row.externalId;
    const saved = renamed
      ? await data.scim.updateScimGroup(teamId, row.id, {
          displayName: next.displayName,
          externalId: next.externalId,
        })
      : row;
    const changedUsers = await writeGroupMembers(data, teamId, row.id, currentIds, next);
    return { group: saved ?? row, changed: changedUsers };
  });
  forgetGroupsOf(deps, changed);
  // Read again: members' changes moved lastModified.
  return groupResourceOf(deps, await findTeamScimGroup(deps, client, group.id));
}

/** Replaces a group's name, external id and members (PUT /Groups/{id}): members absent are none. */
export async function scimReplaceGroup(
  deps: ServiceDependencies,
  client: ScimClient,
  id: string,
  body: unknown,
) {
  const fields = readScimGroup(body);
  const group = await findTeamScimGroup(deps, client, id);
  return saveScimGroup(deps, client, group.id, () => fields);
}

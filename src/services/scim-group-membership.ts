import type { ScimGroupRow } from '../db/repositories/scim.js';
import { ServiceError } from '../errors.js';
import type { ServiceDependencies, TransactionData } from './dependencies.js';
import type { ScimGroupFields } from './scim-attributes.js';
import type { ScimClient } from './scim-authenticate.js';
import { ScimError } from './scim-error.js';
import { scimBaseUrl, scimGroupResource, scimId } from './scim-resources.js';

/**
 * What the SCIM group use cases share. A group whose display name or external id is an e-mail
 * address stands for that group address: its members' callers carry it (access-tokens
 * repository), so a change of members or names is forgotten from the callers' cache at once.
 */

export function scimGroupNotFound(): ServiceError {
  return new ServiceError('not_found', 'Group not found');
}

/** One of the team's groups; 404 for another team's. */
export async function findTeamScimGroup(
  deps: ServiceDependencies,
  client: ScimClient,
  id: string,
): Promise<ScimGroupRow> {
  const groupId = scimId(id);
  const row = groupId === undefined ? undefined : await deps.data.scim.findScimGroup(client.teamId, groupId);
  if (row === undefined) throw scimGroupNotFound();
  return row;
}

/** A group as SCIM shows it, with its members unless `withMembers` is false. */
export async function groupResourceOf(deps: ServiceDependencies, row: ScimGroupRow, withMembers = true) {
  const members = withMembers ? await deps.data.scim.listScimGroupMembers([row.id]) : undefined;
  return scimGroupResource(row, members, scimBaseUrl(deps.config.publicUrl));
}

/** Another group of the team with this name is a 409 `uniqueness`. */
export async function assertGroupNameFree(
  data: Pick<TransactionData, 'scim'>,
  teamId: number,
  displayName: string,
  ownId?: string,
): Promise<void> {
  const holder = await data.scim.findScimGroupByDisplayName(teamId, displayName);
  if (holder !== undefined && holder.id !== ownId) {
    throw new ScimError('conflict', 'uniqueness', `A group with displayName "${displayName}" already exists`);
  }
}

/**
 * Writes a group's members as `next` lists them, given those it has: people added must be the
 * team's provisioned people (400 `invalidValue` otherwise: another team's are not this
 * directory's); people removed who are not in it change nothing. Answers the accounts whose
 * groups changed.
 */
export async function writeGroupMembers(
  data: Pick<TransactionData, 'scim'>,
  teamId: number,
  groupId: string,
  currentIds: readonly string[],
  next: ScimGroupFields,
): Promise<number[]> {
  const added = next.memberIds.filter((id) => !currentIds.includes(id));
  const removed = currentIds.filter((id) => !next.memberIds.includes(id));
  const addedIds = added.map((id) => scimId(id));
  const found = await data.scim.findLiveScimUsers(
    teamId,
    addedIds.filter((id): id is string => id !== undefined),
  );
  const unknown = added.filter((_, index) => !found.some((row) => row.id === addedIds[index]));
  if (unknown.length > 0) throw ScimError.invalidValue(`No user with id "${unknown[0]}" in this team`);
  const before = await data.scim.linkedUsersOfGroup(groupId);
  await data.scim.removeScimGroupMembers(groupId, removed);
  await data.scim.addScimGroupMembers(
    groupId,
    found.map((row) => row.id),
  );
  if (added.length > 0 || removed.length > 0) await data.scim.touchScimGroup(groupId);
  const after = await data.scim.linkedUsersOfGroup(groupId);
  return [...new Set([...before, ...after])];
}

/** The groups of these accounts changed: their cached callers are forgotten (this process at once). */
export function forgetGroupsOf(deps: ServiceDependencies, userIds: readonly number[]): void {
  for (const userId of userIds) deps.callers.forgetUser(userId);
}

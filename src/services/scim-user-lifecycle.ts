import type { ScimUserFields, ScimUserRow } from '../db/repositories/scim.js';
import { ServiceError } from '../errors.js';
import type { ServiceDependencies, TransactionData } from './dependencies.js';
import { removeTeamMember } from './member-removal.js';
import type { ScimClient } from './scim-authenticate.js';
import { ScimError } from './scim-error.js';

/**
 * What the SCIM use cases share about a person's membership: a person turned off (`active: false`)
 * or deleted leaves the team as a removed member does (`removeTeamMember`: every token at once,
 * private uploads, chats); an active one is linked to the team's account with their address.
 */

const USER_NOT_FOUND = 'User not found';

export function scimUserNotFound(): ServiceError {
  return new ServiceError('not_found', USER_NOT_FOUND);
}

function ownerCannotLeave(): ServiceError {
  return new ServiceError(
    'conflict',
    "The team's owner cannot be deactivated or deleted: first hand ownership over to another member (PATCH /v1/teams/members/{user_id})",
  );
}

export function userNameTaken(userName: string): ScimError {
  return new ScimError('conflict', 'uniqueness', `A user with userName "${userName}" already exists`);
}

/** Refuses a change that would turn the team's owner off; nothing is written before. */
export async function assertNotOwner(
  deps: ServiceDependencies,
  teamId: number,
  userId: number | null,
): Promise<void> {
  if (userId === null) return;
  const member = await deps.data.teams.findTeamMember(teamId, userId);
  if (member?.role === 'owner') throw ownerCannotLeave();
}

/**
 * Ends the membership of the account a provisioned person is linked to, with `write` (their row's
 * new state) in the same transaction; the account of someone no longer in this team is not
 * touched (another team's people are not this directory's). Answers what `write` answered.
 */
export async function endLinkedMembership<T>(
  deps: ServiceDependencies,
  teamId: number,
  userId: number,
  write: (data: TransactionData) => Promise<T>,
): Promise<T> {
  const member = await deps.data.teams.findTeamMember(teamId, userId);
  if (member?.role === 'owner') throw ownerCannotLeave();
  if (member === undefined) return deps.data.transaction(write);
  let written: { value: T } | undefined;
  await removeTeamMember(deps, {
    teamId,
    userId,
    jobsFailWith: "The member who asked for it was deprovisioned by the team's directory",
    confirm: async (data, current) => {
      // Ownership may have been handed to them since the check above.
      if (current?.role === 'owner') throw ownerCannotLeave();
      written = { value: await write(data) };
    },
  });
  if (written === undefined) throw new Error('The removal did not write the SCIM user');
  return written.value;
}

/**
 * Makes a person's user name theirs: a live row of anyone else (in any team: a user name is one
 * person service-wide) is a 409 `uniqueness`; a tombstone holding it is deleted for good.
 */
export async function claimUserName(
  deps: ServiceDependencies,
  userName: string,
  ownId?: string,
): Promise<void> {
  const holder = await deps.data.scim.findScimUserByUserName(userName);
  if (holder === undefined || holder.id === ownId) return;
  if (holder.deletedAt === null) throw userNameTaken(userName);
  await deps.data.scim.purgeScimTombstone(holder.id);
}

/** The account of this team with the address, to link an active person to (none: a member-to-be). */
export async function teamAccountOf(
  deps: ServiceDependencies,
  teamId: number,
  userName: string,
): Promise<number | null> {
  const member = await deps.data.teams.findTeamMemberByEmail(teamId, userName);
  return member?.userId ?? null;
}

/**
 * Saves a person's new attributes: turned off while linked, their membership ends with the write
 * (the owner's refused: 409); active and unlinked, linked to this team's account with the
 * address, if there is one (otherwise their first single sign-on brings them in).
 */
export async function saveScimUser(
  deps: ServiceDependencies,
  client: ScimClient,
  current: ScimUserRow,
  next: ScimUserFields,
): Promise<ScimUserRow> {
  const { teamId } = client;
  if (next.userName !== current.userName) await claimUserName(deps, next.userName, current.id);
  const update = async (data: Pick<TransactionData, 'scim'>, userId: number | null) => {
    try {
      return await data.scim.updateScimUser(teamId, current.id, { ...next, userId });
    } catch (error) {
      if (deps.data.violatedUniqueIndex(error) !== undefined) throw userNameTaken(next.userName);
      throw error;
    }
  };
  let saved: ScimUserRow | undefined;
  if (!next.active && current.userId !== null) {
    saved = await endLinkedMembership(deps, teamId, current.userId, (data) => update(data, null));
  } else {
    const userId =
      next.active && current.userId === null
        ? await teamAccountOf(deps, teamId, next.userName)
        : current.userId;
    saved = await update(deps.data, userId);
  }
  if (saved === undefined) throw scimUserNotFound();
  return saved;
}

import { randomBytes, randomUUID } from 'node:crypto';
import { type Caller, managesTeam } from '../caller.js';
import { ServiceError } from '../errors.js';
import { hashAccessToken } from '../security/access-tokens.js';
import type { ServiceDependencies } from './dependencies.js';

/** Every SCIM token starts so: recognisable in a directory's settings and in a leaked-secret scan. */
export const SCIM_TOKEN_PREFIX = 'scim_';

/** Owners and admins manage the team's SCIM tokens. */
export function assertManagesScim(caller: Caller): void {
  if (!managesTeam(caller)) {
    throw new ServiceError('forbidden', "Only the team's owner and admins may manage SCIM tokens");
  }
}

/**
 * A new SCIM token for the caller's team (owners and admins): the team's directory (Okta, Entra ID)
 * provisions people with it at /scim/v2. Shown only here; only its SHA-256 is stored.
 */
export async function scimCreateToken(deps: ServiceDependencies, caller: Caller) {
  assertManagesScim(caller);
  const token = `${SCIM_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
  const row = await deps.data.scim.insertScimToken({
    id: randomUUID(),
    teamId: caller.teamId,
    tokenHash: hashAccessToken(token),
    createdBy: caller.userId,
  });
  return { id: row.id, token, created_at: row.createdAt.toISOString() };
}

import { ServiceError } from '../errors.js';
import { hashAccessToken } from '../security/access-tokens.js';
import type { ServiceDependencies } from './dependencies.js';
import { SCIM_TOKEN_PREFIX } from './scim-create-token.js';

/** Who calls /scim/v2: a team's directory, by one of the team's SCIM tokens. Not a user. */
export interface ScimClient {
  readonly teamId: number;
  readonly tokenId: string;
}

/**
 * The team whose SCIM token a request carries; 401 for anything else, a user's token included
 * (and a SCIM token is no user's: the other routes never find it). Looked up on every request,
 * so a revoked token stops at once.
 */
export async function scimAuthenticate(
  deps: ServiceDependencies,
  token: string | undefined,
): Promise<ScimClient> {
  if (token === undefined)
    throw new ServiceError('unauthenticated', 'A SCIM token is required: Authorization: Bearer <token>');
  const found = token.startsWith(SCIM_TOKEN_PREFIX)
    ? await deps.data.scim.findScimTokenByHash(hashAccessToken(token))
    : undefined;
  if (found === undefined) throw new ServiceError('unauthenticated', 'The SCIM token is not valid');
  await deps.data.scim.noteScimTokenUse(found.id, deps.now());
  return { teamId: found.teamId, tokenId: found.id };
}

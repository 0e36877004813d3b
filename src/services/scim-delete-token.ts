import type { Caller } from '../caller.js';
import { ServiceError } from '../errors.js';
import type { ServiceDependencies } from './dependencies.js';
import { assertManagesScim } from './scim-create-token.js';
import { scimId } from './scim-resources.js';

/** Revokes one of the team's SCIM tokens (owners and admins): it stops working at once; 404 for another team's. */
export async function scimDeleteToken(deps: ServiceDependencies, caller: Caller, id: string): Promise<void> {
  assertManagesScim(caller);
  const tokenId = scimId(id);
  if (tokenId === undefined || !(await deps.data.scim.deleteScimToken(caller.teamId, tokenId))) {
    throw new ServiceError('not_found', 'SCIM token not found');
  }
}

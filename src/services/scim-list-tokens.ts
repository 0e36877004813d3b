import type { Caller } from '../caller.js';
import type { ServiceDependencies } from './dependencies.js';
import { assertManagesScim } from './scim-create-token.js';

/** The team's SCIM tokens (owners and admins), oldest first; never their secrets. */
export async function scimListTokens(deps: ServiceDependencies, caller: Caller) {
  assertManagesScim(caller);
  const tokens = await deps.data.scim.listScimTokens(caller.teamId);
  return {
    tokens: tokens.map((token) => ({
      id: token.id,
      created_at: token.createdAt.toISOString(),
      last_used_at: token.lastUsedAt?.toISOString() ?? null,
    })),
  };
}

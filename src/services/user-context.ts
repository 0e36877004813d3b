import type { Caller } from '../caller.js';
import { ServiceError } from '../errors.js';
import { sameEmailAddress } from '../security/email-address.js';
import type { ServiceDependencies } from './dependencies.js';

/** The request's claim of who is asking (spec 2.1); checked, never trusted. */
export interface UserContextClaim {
  readonly id: number;
  readonly email: string;
  readonly team_id: number;
  readonly vector_store: { readonly id: number; readonly namespaces: readonly string[] };
}

/**
 * Refuses a `user_context` that is not the caller's own: its user id, e-mail (any spelling of it), team
 * id, vector store id and every vector-store namespace it names must be the signed-in caller's.
 * Nothing else is read from it: its connector list may be older than the team's connectors.
 */
export async function assertOwnUserContext(
  deps: ServiceDependencies,
  caller: Caller,
  claim: UserContextClaim,
): Promise<void> {
  if (
    claim.id !== caller.userId ||
    claim.team_id !== caller.teamId ||
    !sameEmailAddress(claim.email, caller.email)
  ) {
    throw new ServiceError('forbidden', 'user_context is not the signed-in user');
  }
  const store = await deps.data.users.findVectorStore(caller.teamId);
  if (store === undefined || claim.vector_store.id !== store.id) {
    throw new ServiceError('forbidden', "user_context.vector_store is not the caller's team's");
  }
  const own = new Set(store.namespaces);
  const named = claim.vector_store.namespaces;
  if (named.length === 0 || !named.every((namespace) => own.has(namespace))) {
    throw new ServiceError('forbidden', "user_context.vector_store.namespaces are not the caller's team's");
  }
}

import type { Caller } from '../caller.js';
import { deleteAccessToken } from '../db/repositories/access-tokens.js';
import type { ServiceDependencies } from './dependencies.js';

/** Revokes the bearer token the caller signed in with. */
export async function signOut(deps: ServiceDependencies, caller: Caller): Promise<void> {
  await deleteAccessToken(deps.db, caller.tokenHash);
  deps.callers.forget(caller.tokenHash);
}

import type { Caller } from '../caller.js';
import type { ServiceDependencies } from './dependencies.js';

/** Revokes the bearer token the caller signed in with. */
export async function signOut(deps: ServiceDependencies, caller: Caller): Promise<void> {
  await deps.data.accessTokens.deleteAccessToken(caller.tokenHash);
  deps.callers.forget(caller.tokenHash);
}

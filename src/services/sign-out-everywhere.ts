import type { Caller } from '../caller.js';
import type { ServiceDependencies } from './dependencies.js';

/** Revokes every bearer token of the caller's user, this one included ("sign out everywhere"). */
export async function signOutEverywhere(deps: ServiceDependencies, caller: Caller): Promise<void> {
  await deps.data.accessTokens.deleteUserAccessTokens(caller.userId);
  deps.callers.forgetUser(caller.userId);
}

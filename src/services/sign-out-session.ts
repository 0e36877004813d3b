import type { ServiceDependencies } from './dependencies.js';
import { signOut } from './sign-out.js';

/**
 * Ends a browser session: revokes its token when it is still valid. An unknown, expired or
 * absent token is no error: signing out must always leave the browser signed out.
 */
export async function signOutSession(deps: ServiceDependencies, token: string | undefined): Promise<void> {
  if (token === undefined) return;
  const caller = await deps.callers.find(token);
  if (caller !== undefined) await signOut(deps, caller);
}

import type { Caller } from '../caller.js';
import { ServiceError } from '../errors.js';
import { isUuid } from '../uuid.js';
import type { ServiceDependencies } from './dependencies.js';

/**
 * Revokes one of the caller's personal access tokens: it stops working at once in this process,
 * and in other API processes when their cached answer goes stale (AUTH_CACHE_TTL_SECONDS), as
 * sign-out does. Another user's token, or an id that names none, is 404.
 */
export async function revokePersonalToken(
  deps: ServiceDependencies,
  caller: Caller,
  id: string,
): Promise<void> {
  if (!isUuid(id)) throw new ServiceError('not_found', 'Token not found');
  const tokenHash = await deps.data.accessTokens.deletePersonalToken(caller.userId, id.toLowerCase());
  if (tokenHash === undefined) throw new ServiceError('not_found', 'Token not found');
  deps.callers.forget(tokenHash);
}

import type { Caller } from '../caller.js';
import { ServiceError } from '../errors.js';
import { isUuid } from '../uuid.js';
import type { ServiceDependencies } from './dependencies.js';

/**
 * Disconnects a client the caller allowed: its access and refresh tokens stop working at once in
 * this process, in others when their cached answer goes stale (AUTH_CACHE_TTL_SECONDS). Another
 * person's connection, or an id that names none, is 404.
 */
export async function revokeConnectedClient(
  deps: Pick<ServiceDependencies, 'data' | 'callers'>,
  caller: Caller,
  id: string,
): Promise<void> {
  const revoked = isUuid(id) ? await deps.data.oauth.deleteGrant(id.toLowerCase(), caller.userId) : undefined;
  if (revoked === undefined) throw new ServiceError('not_found', 'Connected client not found');
  for (const hash of revoked) deps.callers.forget(hash);
}

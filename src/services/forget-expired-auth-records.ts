import type { ServiceDependencies } from './dependencies.js';
import { REFRESH_TOKEN_TTL_SECONDS } from './oauth-policy.js';

/** Throttle windows are at most an hour; a day on, a key's count no longer matters. */
const THROTTLE_RETENTION_MS = 24 * 3600 * 1000;

/** Deletes expired mailed codes, finished throttle records and expired OAuth records (hourly, by the worker). */
export async function forgetExpiredAuthRecords(
  deps: Pick<ServiceDependencies, 'data' | 'now'>,
): Promise<{ codes: number; throttles: number }> {
  const now = deps.now();
  const codes = await deps.data.emailCodes.deleteExpiredEmailCodes(now);
  const throttles = await deps.data.authThrottles.forgetStaleThrottles(
    new Date(now.getTime() - THROTTLE_RETENTION_MS),
  );
  // A grant not refreshed for longer than a refresh token lives holds nothing that still works.
  await deps.data.oauth.deleteExpiredOAuthRecords(
    now,
    new Date(now.getTime() - REFRESH_TOKEN_TTL_SECONDS * 1000 - THROTTLE_RETENTION_MS),
  );
  return { codes, throttles };
}

import type { ServiceDependencies } from './dependencies.js';

/** Throttle windows are at most an hour; a day on, a key's count no longer matters. */
const THROTTLE_RETENTION_MS = 24 * 3600 * 1000;

/** Deletes expired mailed codes and finished throttle records (hourly, by the worker). */
export async function forgetExpiredAuthRecords(
  deps: Pick<ServiceDependencies, 'data' | 'now'>,
): Promise<{ codes: number; throttles: number }> {
  const now = deps.now();
  const codes = await deps.data.emailCodes.deleteExpiredEmailCodes(now);
  const throttles = await deps.data.authThrottles.forgetStaleThrottles(
    new Date(now.getTime() - THROTTLE_RETENTION_MS),
  );
  return { codes, throttles };
}

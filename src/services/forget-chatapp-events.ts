import type { ServiceDependencies } from './dependencies.js';

/**
 * How long an answered event's id is remembered. Slack re-delivers an unacknowledged event
 * three times within minutes (Events API retries), so a week is far more than deduplication
 * needs, and keeps a record to look into for a while.
 */
export const CHATAPP_EVENT_RETENTION_DAYS = 7;
const BATCH = 5_000;

/** Deletes the records of Slack events settled more than the retention ago; answers how many. */
export async function forgetOldChatappEvents(
  deps: Pick<ServiceDependencies, 'data' | 'now'>,
): Promise<number> {
  const cutoff = new Date(deps.now().getTime() - CHATAPP_EVENT_RETENTION_DAYS * 86_400_000);
  let total = 0;
  for (;;) {
    const deleted = await deps.data.chatappEvents.deleteSettledChatappEvents(cutoff, BATCH);
    total += deleted;
    if (deleted < BATCH) return total;
  }
}

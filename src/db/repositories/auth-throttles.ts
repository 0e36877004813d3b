import { inArray, sql } from 'drizzle-orm';
import { type Database, queryRows } from '../client.js';
import { authThrottles } from '../schema.js';

/** How one key's events are allowed and what happens past the allowance. */
export interface ThrottlePolicy {
  /** Events allowed in a window before blocking starts. */
  readonly allowance: number;
  /** A window starts at a key's first event and counts events until it is this old. */
  readonly windowSeconds: number;
  /**
   * `backoff`: each event past the allowance blocks the key for twice as long as the one before,
   * from 1 s up to `maxBlockSeconds`. `window`: the key is blocked until its window ends.
   */
  readonly block:
    | { readonly kind: 'backoff'; readonly maxBlockSeconds: number }
    | { readonly kind: 'window' };
}

/** The longest block among these keys, in seconds from `now` (0 when none is blocked). */
export async function secondsBlocked(db: Database, keys: readonly string[], now: Date): Promise<number> {
  if (keys.length === 0) return 0;
  const rows = await db
    .select({ blockedUntil: authThrottles.blockedUntil })
    .from(authThrottles)
    .where(inArray(authThrottles.key, [...keys]));
  let longest = 0;
  for (const { blockedUntil } of rows) {
    if (blockedUntil !== null) longest = Math.max(longest, (blockedUntil.getTime() - now.getTime()) / 1000);
  }
  return longest;
}

/**
 * Counts one event for a key (a new window when the last one is over) and blocks the key once the
 * count passes the allowance; one statement, so concurrent events from many processes all count.
 * Answers how long the key is now blocked (0: not).
 */
export async function countThrottledEvent(
  db: Database,
  key: string,
  policy: ThrottlePolicy,
  now: Date,
): Promise<number> {
  const nowAt = sql`${now.toISOString()}::timestamptz`;
  const windowOver = sql`throttle.window_started_at < ${new Date(now.getTime() - policy.windowSeconds * 1000).toISOString()}::timestamptz`;
  // ON CONFLICT's SET sees only the old row, so the new count and window are spelled out where used.
  const count = sql`(CASE WHEN ${windowOver} THEN 1 ELSE throttle.count + 1 END)`;
  const windowStartedAt = sql`(CASE WHEN ${windowOver} THEN ${nowAt} ELSE throttle.window_started_at END)`;
  const blockedUntil =
    policy.block.kind === 'window'
      ? sql`${windowStartedAt} + make_interval(secs => ${policy.windowSeconds}::float8)`
      : sql`${nowAt} + make_interval(secs => LEAST(${policy.block.maxBlockSeconds}::float8,
          power(2, LEAST(${count} - ${policy.allowance}::int - 1, 30))))`;
  const [row] = await queryRows<{ blocked_until: string | Date | null }>(
    db,
    sql`
      INSERT INTO ${authThrottles} AS throttle (key, count, window_started_at)
      VALUES (${key}, 1, ${nowAt})
      ON CONFLICT (key) DO UPDATE SET
        count = ${count},
        window_started_at = ${windowStartedAt},
        blocked_until = CASE WHEN ${count} <= ${policy.allowance}::int THEN NULL ELSE ${blockedUntil} END
      RETURNING blocked_until
    `,
  );
  const until = row?.blocked_until;
  if (until === null || until === undefined) return 0;
  return Math.max(0, (new Date(until).getTime() - now.getTime()) / 1000);
}

/** Forgets a key's count and block (a correct password clears its account's failures). */
export async function clearThrottle(db: Database, key: string): Promise<void> {
  await db.delete(authThrottles).where(sql`${authThrottles.key} = ${key}`);
}

/** Drops keys whose window and block are both over (the worker's hourly clean-up). */
export async function forgetStaleThrottles(db: Database, olderThan: Date): Promise<number> {
  const rows = await queryRows<{ key: string }>(
    db,
    sql`
      DELETE FROM ${authThrottles}
      WHERE window_started_at < ${olderThan.toISOString()}::timestamptz
        AND (blocked_until IS NULL OR blocked_until < now())
      RETURNING key
    `,
  );
  return rows.length;
}

import type { SqlExecutor } from '../sql-connection.js';

/** The channel `lexical_changes`' trigger notifies (payload: a team's id), migration 0015. */
export const LEXICAL_CHANGES_CHANNEL = 'lexical_changes';
/** The channel a barrier is raised on (payload: its number). */
export const SEARCH_BARRIER_CHANNEL = 'search_barrier';

/** Rows of followers whose lease ended this long ago are deleted when another registers. */
const FORGET_EXPIRED_AFTER = '1 hour';

/**
 * Registers a follower that already LISTENs on both channels, leased for `leaseMs`: barriers
 * raised before it need not wait for it (it counts as having heard them), later ones will. A
 * follower registering again (a new connection, a new epoch: no mark of before counts) releases the
 * barriers that waited for its old connection.
 */
export async function registerSearchFollower(sql: SqlExecutor, id: string, leaseMs: number): Promise<void> {
  await sql.executeSql(
    `WITH forgotten AS (
       DELETE FROM search_followers WHERE expires_at < now() - interval '${FORGET_EXPIRED_AFTER}'
     )
     INSERT INTO search_followers (id, acknowledged, expires_at)
     VALUES ($1, COALESCE((SELECT last FROM search_barriers WHERE id = 1), 0),
             now() + $2::int * interval '1 millisecond')
     ON CONFLICT (id) DO UPDATE SET acknowledged = EXCLUDED.acknowledged, expires_at = EXCLUDED.expires_at`,
    [id, leaseMs],
  );
}

/**
 * Extends the follower's lease. `found` false: its row is gone (it must register again);
 * `continuous` false: the lease had run out before this statement, so barriers may have passed
 * without the follower meanwhile.
 */
export async function renewSearchFollower(
  sql: SqlExecutor,
  id: string,
  leaseMs: number,
): Promise<{ found: boolean; continuous: boolean }> {
  // The CTE reads the row as it was before the update.
  const { rows } = await sql.executeSql<{ continuous: boolean }>(
    `WITH before AS (SELECT expires_at > now() AS live FROM search_followers WHERE id = $1)
     UPDATE search_followers SET expires_at = now() + $2::int * interval '1 millisecond'
     WHERE id = $1 RETURNING (SELECT live FROM before) AS continuous`,
    [id, leaseMs],
  );
  const row = rows[0];
  return { found: row !== undefined, continuous: row?.continuous === true };
}

/** Records that the follower has heard barrier `barrier`, and so every notification before it. */
export async function acknowledgeSearchBarrier(sql: SqlExecutor, id: string, barrier: number): Promise<void> {
  await sql.executeSql(
    'UPDATE search_followers SET acknowledged = greatest(acknowledged, $2::bigint) WHERE id = $1',
    [id, barrier],
  );
}

/** A follower that stops: barriers no longer wait for it. */
export async function forgetSearchFollower(sql: SqlExecutor, id: string): Promise<void> {
  await sql.executeSql('DELETE FROM search_followers WHERE id = $1', [id]);
}

/**
 * Raises the next barrier and notifies it, in one transaction that holds the counter's row until
 * it commits: barriers therefore commit in the order of their numbers, so a follower that heard
 * barrier n has heard every notification committed before barrier n did.
 */
export async function raiseSearchBarrier(sql: SqlExecutor): Promise<number> {
  const { rows } = await sql.executeSql<{ last: number | string }>(
    `WITH raised AS (
       INSERT INTO search_barriers (id, last) VALUES (1, 1)
       ON CONFLICT (id) DO UPDATE SET last = search_barriers.last + 1
       RETURNING last
     )
     SELECT last, pg_notify('${SEARCH_BARRIER_CHANNEL}', last::text) FROM raised`,
  );
  const last = rows[0]?.last;
  if (last === undefined) throw new Error('raising a search barrier returned no number');
  return Number(last);
}

/** Followers whose lease runs and that have not yet heard barrier `barrier`. */
export async function countFollowersBehind(sql: SqlExecutor, barrier: number): Promise<number> {
  const { rows } = await sql.executeSql<{ behind: number | string }>(
    `SELECT count(*) AS behind FROM search_followers
     WHERE acknowledged < $1::bigint AND expires_at > now()`,
    [barrier],
  );
  return Number(rows[0]?.behind ?? 0);
}

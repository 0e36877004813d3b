import type { SqlExecutor } from '../sql-connection.js';

/** Where a pass of `foldTermChunksAfter` goes on from: the last (team, term) it looked at. */
export interface TermChunksPosition {
  readonly teamId: number;
  readonly term: string;
}

/**
 * Folds the rows of `team_term_chunks` from just after `after` up to and including the
 * (team, term) `spanRows` rows on (in (team, term) order, so no term is split): each (team, term)
 * becomes one row with its sum, none when that is 0. Every write adds a row per term it touched,
 * and searches fold only the terms they read, so a deleted file's terms stay as rows that cancel
 * out: 2.1 million of them (130 MiB of PGlite's folder) after a 30 MiB file was indexed and
 * deleted. One range of the index a statement: folding them group by group read every row's page
 * at random and took minutes. Safe beside writers and other folds, as `foldTeamTermChunks` is.
 * Answers where the next call goes on from, or undefined once the table is passed.
 */
export async function foldTermChunksAfter(
  sql: SqlExecutor,
  after: TermChunksPosition | undefined,
  spanRows: number,
): Promise<TermChunksPosition | undefined> {
  const from = [after?.teamId ?? -1, after?.term ?? ''];
  const bound = await sql.executeSql<{ team_id: number; term: string }>(
    `SELECT team_id, term FROM team_term_chunks WHERE (team_id, term) > ($1::int, $2::text)
     ORDER BY team_id, term OFFSET $3 LIMIT 1`,
    [...from, Math.max(0, spanRows - 1)],
  );
  const last = bound.rows[0];
  // Two texts rather than an OR: the upper bound must be a bound of the index's range, not a filter.
  const upTo = last === undefined ? '' : 'AND (team_id, term) <= ($3::int, $4::text)';
  await sql.executeSql(
    `WITH gone AS (
       DELETE FROM team_term_chunks WHERE (team_id, term) > ($1::int, $2::text) ${upTo}
       RETURNING team_id, term, chunks
     )
     INSERT INTO team_term_chunks (team_id, term, chunks)
     SELECT team_id, term, sum(chunks) FROM gone GROUP BY team_id, term HAVING sum(chunks) <> 0`,
    last === undefined ? from : [...from, last.team_id, last.term],
  );
  return last === undefined ? undefined : { teamId: Number(last.team_id), term: last.term };
}

/**
 * Whether `team_term_chunks` holds far more rows than there are postings (by the row counts the
 * last vacuums left): rows that cancel out, of documents deleted before a fold got to them.
 */
export async function termChunkRowsOutnumberPostings(sql: SqlExecutor, slackRows: number): Promise<boolean> {
  const { rows } = await sql.executeSql<{ crowded: boolean }>(
    `SELECT (SELECT reltuples FROM pg_class WHERE oid = 'team_term_chunks'::regclass)
       > 2 * greatest((SELECT reltuples FROM pg_class WHERE oid = 'chunk_terms'::regclass), 0) + $1 AS crowded`,
    [slackRows],
  );
  return rows[0]?.crowded === true;
}

import type { Reader } from '../../access.js';
import type { SqlExecutor } from '../sql-connection.js';
import { readableListIdsQuery } from './access-lists.js';

/**
 * The statements that let a process keep a team's postings in memory and current
 * (retrieval/lexical-index): a team's postings read chunk by chunk, and the chunks whose postings
 * changed since a snapshot, from `lexical_changes`, which triggers on `chunk_terms` fill in the
 * writers' transactions (migration 0013).
 *
 * What a reader saw is a PostgreSQL snapshot (`pg_current_snapshot()`, as text). Every change it
 * did not see was made by a transaction that snapshot could not see: one still running when it
 * was taken, or one that began later. Those rows are the ones whose transaction id is at least
 * the snapshot's xmin and not visible in it, whatever order transactions commit in; rows of
 * transactions that are still running are not visible to the next read either, and it finds them
 * once they commit.
 */

/** A chunk's postings now (none: it is gone), with what ranking needs to know of the chunk. */
export interface ChunkPostings {
  readonly chunkId: number;
  readonly length: number;
  readonly accessListId: number;
  readonly connectorId: number | null;
  readonly source: string;
  readonly postings: readonly { readonly term: string; readonly frequency: number }[];
}

/** Where a reader stands: the snapshot it read with. */
export interface LexicalSnapshot {
  /** `pg_current_snapshot()` as text (`xmin:xmax:xip,…`). */
  readonly snapshot: string;
}

/** The changes a snapshot did not see, and the query's lexemes, read in one statement. */
export interface LexicalSync extends LexicalSnapshot {
  /** Every chunk of the team changed since the earlier snapshot, as it is now (empty postings: deleted). */
  readonly changed: readonly ChunkPostings[];
  /** The query text's distinct lexemes (PostgreSQL's English analysis), in the database's order of text. */
  readonly lexemes: readonly string[];
  /** The ids of the team's access lists the reader may open (as `readableAccessListIds` reads them). */
  readonly accessListIds: readonly number[];
  /** Each of the words asked for, analysed on its own: its distinct lexemes (none for a stop word). */
  readonly wordLexemes: readonly (readonly string[])[];
}

interface PostingRow {
  readonly chunk_id: string | number;
  readonly team_id: number | null;
  readonly term: string | null;
  readonly frequency: number | null;
  readonly chunk_length: number | null;
  readonly access_list_id: number | null;
  readonly connector_id: number | null;
  readonly source: string | null;
}

const POSTING_COLUMNS =
  'p.team_id, p.term, p.frequency, p.chunk_length, p.access_list_id, p.connector_id, p.source';

/*
 * Postings are read by chunk id alone, which the primary key (chunk_id, term) leads with; the team
 * is checked on the rows read (`groupByChunk`). With the team in the condition too, PostgreSQL and
 * PGlite chose, whenever their statistics predated a large write (autovacuum off, or not run yet),
 * the ranking index (team_id, term, …) with chunk_id as a condition on its fourth column: the
 * team's whole range of it scanned once per chunk. A sync after a 3 MiB file (5,600 chunks) took
 * 39 s that way instead of 0.2 s, and every search waited for it.
 */

/** The snapshot a load starts from: changes after it are read once the load is done. */
export async function readLexicalSnapshot(sql: SqlExecutor): Promise<LexicalSnapshot> {
  const { rows } = await sql.executeSql<{ snapshot: string }>(
    'SELECT pg_current_snapshot()::text AS snapshot',
  );
  const row = rows[0];
  if (row === undefined) throw new Error('the database returned no snapshot');
  return { snapshot: row.snapshot };
}

/** The team's chunk ids, ascending: a load reads their postings in batches. */
export async function readTeamChunkIds(sql: SqlExecutor, teamId: number): Promise<number[]> {
  const { rows } = await sql.executeSql<{ id: string | number }>(
    'SELECT id FROM chunks WHERE team_id = $1 ORDER BY id',
    [teamId],
  );
  return rows.map((row) => Number(row.id));
}

/** These chunks' postings, by primary key; a chunk with none (or of another team) is left out. */
export async function readChunkPostings(
  sql: SqlExecutor,
  teamId: number,
  chunkIds: readonly number[],
): Promise<ChunkPostings[]> {
  if (chunkIds.length === 0) return [];
  const { rows } = await sql.executeSql<PostingRow>(
    `SELECT p.chunk_id, ${POSTING_COLUMNS} FROM chunk_terms AS p
     WHERE p.chunk_id = ANY($1::bigint[]) ORDER BY p.chunk_id`,
    [chunkIds],
  );
  return groupByChunk(rows, teamId).filter((chunk) => chunk.postings.length > 0);
}

/**
 * The chunks of the team whose postings changed in transactions `since` did not see, each with
 * its postings now, the query's lexemes (and each of `queryWords`' on its own) and the access
 * lists the reader may open: a search in memory needs nothing else before its hits' text.
 *
 * One statement when nothing changed, which is what nearly every search finds: a new snapshot,
 * the team's latest change visible in it, whether a change of a transaction `since` saw running is
 * visible now, the analysis and the lists. Its plan does not depend on the parameters, so
 * PostgreSQL keeps one generic plan for it; the change log read by a snapshot's xmin instead got
 * either a new plan per search (0.4 ms) or a generic sequential scan of the whole log (1.6 ms at
 * 6,000 rows). A change visible now was seen by `since` unless its transaction began after `since`
 * (at or past its xmax) or was running then (in its list): transactions of other teams and
 * databases that hold the xmin back do not count. Only when one may be unseen does a second
 * statement read the changes, planned for the xmin it is given (never prepared).
 */
export async function readLexicalSync(
  sql: SqlExecutor,
  reader: Reader,
  since: string,
  queryText: string,
  queryWords: readonly string[] = [],
): Promise<LexicalSync> {
  const sinceParts = parseSnapshot(since);
  const values: unknown[] = [reader.teamId, queryText, queryWords, sinceParts.running];
  const readable = readableListIdsQuery(reader, values);
  const { rows } = await sql.executeSql<{
    snapshot: string;
    latest: string | null;
    ran_then: boolean;
    lexemes: string[] | null;
    word_lexemes: string[] | null;
    readable: (number | string)[] | null;
  }>(
    `SELECT pg_current_snapshot()::text AS snapshot,
       (SELECT max(l.transaction_id) FROM lexical_changes AS l WHERE l.team_id = $1)::text AS latest,
       EXISTS (
         SELECT 1 FROM lexical_changes AS l WHERE l.team_id = $1 AND l.transaction_id = ANY($4::xid8[])
       ) AS ran_then,
       ARRAY(SELECT DISTINCT lexeme FROM unnest(to_tsvector('english', $2::text)) ORDER BY 1) AS lexemes,
       ARRAY(
         SELECT array_to_string(
           ARRAY(SELECT DISTINCT lexeme FROM unnest(to_tsvector('english', w.word)) ORDER BY 1), ' ')
         FROM unnest($3::text[]) WITH ORDINALITY AS w(word, n) ORDER BY w.n
       ) AS word_lexemes,
       ARRAY(${readable}) AS readable`,
    values,
    // Before every search held in memory: parsed and planned once per connection.
    { prepared: true, readOnly: true },
  );
  const first = rows[0];
  if (first === undefined) throw new Error('the database returned no snapshot');
  const state = {
    snapshot: first.snapshot,
    lexemes: first.lexemes ?? [],
    wordLexemes: (first.word_lexemes ?? []).map((lexemes) =>
      lexemes.split(' ').filter((lexeme) => lexeme !== ''),
    ),
    accessListIds: (first.readable ?? []).map(Number),
  };
  const seen = first.latest === null || (BigInt(first.latest) < sinceParts.xmax && !first.ran_then);
  if (seen) return { ...state, changed: [] };
  return { ...state, ...(await readLexicalChanges(sql, reader.teamId, since)) };
}

/**
 * The chunks of the team changed in transactions `since` did not see, each with its postings now
 * (none: deleted), and the snapshot they were read in.
 */
async function readLexicalChanges(
  sql: SqlExecutor,
  teamId: number,
  since: string,
): Promise<{ snapshot: string; changed: ChunkPostings[] }> {
  const { rows } = await sql.executeSql<PostingRow & { snapshot: string }>(
    // `changed` is planned on its own (MATERIALIZED): inlined into the join, PostgreSQL 15 chose
    // to scan the whole change log in parallel (17 ms a search once it held 145,000 rows) rather
    // than its index (0.1 ms).
    `WITH changed AS MATERIALIZED (
       SELECT DISTINCT l.chunk_id FROM lexical_changes AS l
       WHERE l.team_id = $1 AND l.transaction_id >= $3::xid8
         AND NOT pg_visible_in_snapshot(l.transaction_id, $2::text::pg_snapshot)
     ), present AS (
       SELECT c.chunk_id, ${POSTING_COLUMNS} FROM changed AS c
       LEFT JOIN chunk_terms AS p ON p.chunk_id = c.chunk_id
     )
     SELECT pg_current_snapshot()::text AS snapshot, present.*
     FROM (SELECT 1) AS s LEFT JOIN present ON true
     ORDER BY present.chunk_id`,
    [teamId, since, parseSnapshot(since).xmin.toString()],
    { readOnly: true },
  );
  const first = rows[0];
  if (first === undefined) throw new Error('the database returned no snapshot');
  return {
    snapshot: first.snapshot,
    changed: groupByChunk(
      rows.filter((row) => row.chunk_id !== null),
      teamId,
    ),
  };
}

/**
 * A snapshot's parts (`xmin:xmax:running,…`): every transaction below xmin had ended when it was
 * taken, none from xmax on had begun, and those listed were running.
 */
function parseSnapshot(snapshot: string): { xmin: bigint; xmax: bigint; running: string[] } {
  const match = /^(\d+):(\d+):((?:\d+(?:,\d+)*)?)$/.exec(snapshot);
  if (match === null) throw new Error(`not a snapshot: ${snapshot}`);
  const [, xmin = '', xmax = '', running = ''] = match;
  return { xmin: BigInt(xmin), xmax: BigInt(xmax), running: running === '' ? [] : running.split(',') };
}

/**
 * Deletes change rows older than `cutoff` whose transactions every snapshot now sees (a process
 * that has not read changes for longer reloads its teams); answers how many.
 */
export async function deleteOldLexicalChanges(
  sql: SqlExecutor,
  cutoff: Date,
  limit: number,
): Promise<number> {
  const { rows } = await sql.executeSql<{ '?column?': number }>(
    `WITH old AS (
       SELECT id FROM lexical_changes
       WHERE changed_at < $1 AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())
       ORDER BY changed_at LIMIT $2
     )
     DELETE FROM lexical_changes AS l USING old WHERE l.id = old.id
     RETURNING 1`,
    [cutoff.toISOString(), limit],
  );
  return rows.length;
}

/**
 * Rows in chunk order to one entry per chunk (a chunk with no postings gets an empty list, and so
 * does one whose postings are another team's).
 */
function groupByChunk(rows: readonly PostingRow[], teamId: number): ChunkPostings[] {
  const chunks: ChunkPostings[] = [];
  let current: (ChunkPostings & { postings: { term: string; frequency: number }[] }) | undefined;
  for (const row of rows) {
    const chunkId = Number(row.chunk_id);
    if (current === undefined || current.chunkId !== chunkId) {
      current = {
        chunkId,
        length: Number(row.chunk_length ?? 0),
        accessListId: Number(row.access_list_id ?? 0),
        connectorId: row.connector_id === null ? null : Number(row.connector_id),
        source: String(row.source ?? ''),
        postings: [],
      };
      chunks.push(current);
    }
    if (row.term !== null && Number(row.team_id) === teamId)
      current.postings.push({ term: row.term, frequency: Number(row.frequency) });
  }
  return chunks;
}

import type { Reader } from '../../access.js';
import type { SqlExecutor } from '../sql-connection.js';
import { readableListIdsQuery } from './access-lists.js';
import { type TsvectorPosting, tsvectorPostings } from './tsvector-text.js';

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
  readonly postings: readonly TsvectorPosting[];
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

/** A chunk as the postings reads answer it: its tsvector as text (null: the chunk is gone). */
interface ChunkRow {
  readonly chunk_id: string | number;
  readonly team_id: number | null;
  readonly lexical_length: number | null;
  readonly access_list_id: number | null;
  readonly connector_id: number | null;
  readonly source: string | null;
  readonly search: string | null;
}

const CHUNK_COLUMNS =
  'c.team_id, c.lexical_length, c.access_list_id, c.connector_id, c.source, c.search::text AS search';

/*
 * A chunk's postings are read as its tsvector (`chunks.search`), one text per chunk, by the chunks'
 * primary key: `chunk_terms` is that tsvector unnested in the statement that stores the chunk
 * (documents.ts), with its length, access list, connector and source copied from the chunk (and
 * kept equal when the access list changes, access-lists.ts). Read as rows of `chunk_terms`, the
 * postings of a sync after a batch of 400 chunks (11,000 rows) took 35 ms of which the database
 * spent 7 ms; as 400 texts, 4 ms and 2 ms. While a large file is indexed every search syncs such a
 * batch. Nor is `chunk_terms` read by chunk id with the team in the condition: whenever the
 * planners' statistics predated a large write they chose its ranking index (team_id, term, …),
 * scanning the team's whole range of it once per chunk (39 s instead of 0.2 s after a 3 MiB file).
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
  const { rows } = await sql.executeSql<ChunkRow>(
    `SELECT c.id AS chunk_id, ${CHUNK_COLUMNS} FROM chunks AS c WHERE c.id = ANY($1::bigint[]) ORDER BY c.id`,
    [chunkIds],
  );
  return rows.map((row) => chunkPostingsOf(row, teamId)).filter((chunk) => chunk.postings.length > 0);
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
  const { rows } = await sql.executeSql<ChunkRow & { snapshot: string }>(
    // `changed` is planned on its own (MATERIALIZED): inlined into the join, PostgreSQL 15 chose
    // to scan the whole change log in parallel (17 ms a search once it held 145,000 rows) rather
    // than its index (0.1 ms).
    `WITH changed AS MATERIALIZED (
       SELECT DISTINCT l.chunk_id FROM lexical_changes AS l
       WHERE l.team_id = $1 AND l.transaction_id >= $3::xid8
         AND NOT pg_visible_in_snapshot(l.transaction_id, $2::text::pg_snapshot)
     ), present AS (
       SELECT l.chunk_id, ${CHUNK_COLUMNS} FROM changed AS l
       LEFT JOIN chunks AS c ON c.id = l.chunk_id
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
    changed: rows.filter((row) => row.chunk_id !== null).map((row) => chunkPostingsOf(row, teamId)),
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

/** A chunk read, with its postings (none when it is gone or another team's). */
function chunkPostingsOf(row: ChunkRow, teamId: number): ChunkPostings {
  const ours = row.search !== null && Number(row.team_id) === teamId;
  return {
    chunkId: Number(row.chunk_id),
    length: Number(row.lexical_length ?? 0),
    accessListId: Number(row.access_list_id ?? 0),
    connectorId: row.connector_id === null ? null : Number(row.connector_id),
    source: String(row.source ?? ''),
    postings: ours ? tsvectorPostings(row.search ?? '') : [],
  };
}

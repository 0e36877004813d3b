import type { SqlExecutor } from '../sql-connection.js';

/** The tables that grow with the documents: vacuumed after large deletes, analysed after large writes. */
export type ChunkTable =
  | 'chunks'
  | 'chunk_terms'
  | 'chunk_embeddings'
  | 'documents'
  | 'index_job_items'
  | 'team_chunk_totals'
  | 'team_term_chunks'
  | 'lexical_changes';

/** Writes every dirty page out, so the WAL before this point can be recycled. */
export async function checkpoint(connection: SqlExecutor): Promise<void> {
  await connection.executeSql('CHECKPOINT');
}

/**
 * VACUUM of one table: dead rows' space free for reuse, and new pages marked all-visible (so
 * index-only scans, BM25's postings reads, stay index-only). `analyse` renews the planner's
 * statistics too (a sample of the whole table: on PGlite 50 to 200 ms of its one thread).
 * `afterInserts`: only pages written since the last vacuum have anything to do, and the indexes
 * are left alone (a GIN index's cleanup reads all of it). SKIP_LOCKED: a table another process is
 * vacuuming is left to it.
 */
export async function vacuumTable(
  connection: SqlExecutor,
  table: ChunkTable,
  options: { readonly analyse: boolean; readonly afterInserts: boolean },
): Promise<void> {
  const settings = [
    'SKIP_LOCKED',
    ...(options.analyse ? ['ANALYZE'] : []),
    ...(options.afterInserts ? ['INDEX_CLEANUP OFF'] : []),
  ];
  await connection.executeSql(`VACUUM (${settings.join(', ')}) ${table}`);
}

/** Whether PostgreSQL's autovacuum runs (it needs `track_counts` too). */
export async function autovacuumRuns(connection: SqlExecutor): Promise<boolean> {
  const { rows } = await connection.executeSql<{ runs: boolean }>(
    "SELECT current_setting('autovacuum') = 'on' AND current_setting('track_counts') = 'on' AS runs",
  );
  return rows[0]?.runs === true;
}

/** A table's size on disk: its rows (heap) and its indexes, in bytes. */
export async function tableSizes(
  connection: SqlExecutor,
  table: ChunkTable,
): Promise<{ heap: number; indexes: number }> {
  const { rows } = await connection.executeSql<{ heap: number | string; indexes: number | string }>(
    'SELECT pg_table_size($1::regclass)::float8 AS heap, pg_indexes_size($1::regclass)::float8 AS indexes',
    [table],
  );
  return { heap: Number(rows[0]?.heap ?? 0), indexes: Number(rows[0]?.indexes ?? 0) };
}

/**
 * About what a table's live rows need on disk: the row count its last vacuum left
 * (`pg_class.reltuples`) times the mean size of up to 1,000 of its rows, plus a line pointer each.
 * Cheap where a count of every row would read the whole table.
 */
export async function liveRowBytes(connection: SqlExecutor, table: ChunkTable): Promise<number> {
  const { rows } = await connection.executeSql<{ bytes: number | string | null }>(
    `SELECT greatest(c.reltuples, 0)::float8 * (
       SELECT coalesce(avg(pg_column_size(t.*)), 0) + 4 FROM (SELECT * FROM ${table} LIMIT 1000) AS t
     ) AS bytes
     FROM pg_class AS c WHERE c.oid = $1::regclass`,
    [table],
  );
  return Number(rows[0]?.bytes ?? 0);
}

/**
 * Writes a table anew with only its live rows, and its indexes (VACUUM FULL): the one way to give
 * back free space that is not at the file's end. It holds the table exclusively while it runs.
 */
export async function rewriteTable(connection: SqlExecutor, table: ChunkTable): Promise<void> {
  await connection.executeSql(`VACUUM FULL ${table}`);
}

/** Rebuilds a table's indexes (giving back the pages deleted rows held in them). */
export async function reindexTable(connection: SqlExecutor, table: ChunkTable): Promise<void> {
  await connection.executeSql(`REINDEX TABLE ${table}`);
}

/** Where the WAL is being written now (an LSN, as text). */
export async function currentWalPosition(connection: SqlExecutor): Promise<string> {
  const { rows } = await connection.executeSql<{ lsn: string }>(
    'SELECT pg_current_wal_insert_lsn()::text AS lsn',
  );
  return String(rows[0]?.lsn);
}

/** How many WAL bytes were written since `lsn`. */
export async function walBytesSince(connection: SqlExecutor, lsn: string): Promise<number> {
  const { rows } = await connection.executeSql<{ bytes: number | string }>(
    'SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1::pg_lsn)::float8 AS bytes',
    [lsn],
  );
  return Number(rows[0]?.bytes ?? 0);
}

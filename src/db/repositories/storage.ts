import type { SqlExecutor } from '../sql-connection.js';

/** The tables whose space a vacuum after large deletes of documents gives back. */
export type ChunkTable = 'chunks' | 'chunk_terms' | 'chunk_embeddings' | 'documents' | 'index_job_items';

/** Writes every dirty page out, so the WAL before this point can be recycled. */
export async function checkpoint(connection: SqlExecutor): Promise<void> {
  await connection.executeSql('CHECKPOINT');
}

/** Marks a table's dead rows' space free for reuse. */
export async function vacuumTable(connection: SqlExecutor, table: ChunkTable): Promise<void> {
  await connection.executeSql(`VACUUM ${table}`);
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

import type { SqlConnection } from '../db/sql-connection.js';
import { indexedVectorType } from '../indexing/embed-stale-chunks.js';
import type { DocumentSource } from './search-types.js';

/**
 * Below this many chunks a team's vectors are compared exactly (one index range of the team's
 * rows, then a sort): cheaper than the HNSW graph, and exact.
 */
export const EXACT_SCAN_MAX_CHUNKS = 5_000;

/** How many graph tuples an iterative HNSW scan may visit looking for the team's rows. */
const MAX_SCAN_TUPLES = 100_000;

export interface VectorQuery {
  readonly teamId: number;
  /** The model whose vectors are searched (as stored in `chunk_embeddings.model`). */
  readonly model: string;
  readonly vector: readonly number[];
  readonly limit: number;
  readonly teamChunks: number;
  readonly efSearch: number;
  /** Teams up to this size are searched exactly; default EXACT_SCAN_MAX_CHUNKS. */
  readonly exactScanMaxChunks?: number;
  readonly connectorIds?: readonly number[] | undefined;
  readonly sources?: readonly DocumentSource[] | undefined;
}

export interface VectorMatch {
  readonly chunkId: number;
  /** Cosine similarity, 1 for the same direction. */
  readonly similarity: number;
}

/**
 * Nearest chunks of one team by cosine distance. The tenant filter is inside the query that walks
 * the HNSW index, and pgvector 0.8's iterative scan (`strict_order`) keeps walking until enough
 * rows pass it: a plain filtered HNSW query stops after `ef_search` candidates and returns too
 * few for a small team in a big database. Small teams, and any scan that still came back short,
 * are answered exactly.
 */
export async function searchVectors(sql: SqlConnection, request: VectorQuery): Promise<VectorMatch[]> {
  if (request.teamChunks === 0 || request.vector.length === 0) return [];
  const { cast } = indexedVectorType(request.vector.length);
  const literal = `'${request.model.replaceAll("'", "''")}'`;
  const values: unknown[] = [request.teamId, `[${request.vector.join(',')}]`, request.limit];
  const filters: string[] = [];
  if (request.connectorIds !== undefined && request.connectorIds.length > 0) {
    values.push(request.connectorIds);
    filters.push(`c.connector_id = ANY($${values.length}::int[])`);
  }
  if (request.sources !== undefined && request.sources.length > 0) {
    values.push(request.sources);
    filters.push(`c.source = ANY($${values.length}::text[])`);
  }
  const chunkFilter =
    filters.length === 0
      ? ''
      : `AND EXISTS (SELECT 1 FROM chunks AS c WHERE c.id = e.chunk_id AND ${filters.join(' AND ')})`;
  // The model is a literal, as in the partial index's predicate, so the planner can match them.
  const query = (distance: string) =>
    `SELECT e.chunk_id, 1 - (e.embedding::${cast} <=> $2::${cast}) AS similarity
     FROM chunk_embeddings AS e
     WHERE e.model = ${literal} AND e.team_id = $1 ${chunkFilter}
     ORDER BY ${distance} LIMIT $3`;
  const exact = () =>
    // `+ 0` hides the indexed expression: the planner scans the team's rows and sorts them.
    sql.executeSql(query(`(e.embedding::${cast} <=> $2::${cast}) + 0`), values);
  const exactly = request.teamChunks <= (request.exactScanMaxChunks ?? EXACT_SCAN_MAX_CHUNKS);
  let { rows } = exactly ? await exact() : { rows: [] };
  if (!exactly) {
    rows = await sql.transaction(async (transaction) => {
      await transaction.executeSql(
        `SELECT set_config('hnsw.iterative_scan', 'strict_order', true),
                set_config('hnsw.ef_search', '${Math.max(request.efSearch, request.limit)}', true),
                set_config('hnsw.max_scan_tuples', '${MAX_SCAN_TUPLES}', true)`,
      );
      return (await transaction.executeSql(query(`e.embedding::${cast} <=> $2::${cast}`), values)).rows;
    });
    if (rows.length < request.limit) rows = (await exact()).rows;
  }
  return rows.map((row) => ({ chunkId: Number(row.chunk_id), similarity: Number(row.similarity) }));
}

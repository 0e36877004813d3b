import type { SqlConnection } from '../db/sql-connection.js';
import { indexedVectorType } from '../db/vector-index.js';
import type { DocumentSource } from './search-types.js';

/**
 * Below this many chunks a team's vectors are compared exactly (one index range of the team's
 * rows, then a sort): cheaper than the HNSW graph, and exact.
 */
export const EXACT_SCAN_MAX_CHUNKS = 5_000;

/** How many graph tuples an iterative HNSW scan may visit looking for the team's rows. */
const MAX_SCAN_TUPLES = 100_000;

/**
 * The HNSW settings a filtered vector query needs, for every database connection to start with
 * (`openDatabase`): a query then runs alone, without a transaction around `SET LOCAL`s, which
 * cost three round trips a search. Only HNSW index scans read them.
 */
export function vectorSessionSettings(efSearch: number): Readonly<Record<string, string>> {
  return {
    'hnsw.iterative_scan': 'strict_order',
    'hnsw.ef_search': String(efSearch),
    'hnsw.max_scan_tuples': String(MAX_SCAN_TUPLES),
  };
}

export interface VectorQuery {
  readonly teamId: number;
  /** The model whose vectors are searched (as stored in `chunk_embeddings.model`). */
  readonly model: string;
  readonly vector: readonly number[];
  readonly limit: number;
  readonly teamChunks: number;
  readonly efSearch: number;
  /**
   * The `hnsw.ef_search` every connection was opened with (`vectorSessionSettings`), if they
   * were: a query that needs no more than that runs alone.
   */
  readonly sessionEfSearch?: number | undefined;
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
  const rows = await rankVectors(sql, request, (ranking) => ranking);
  return rows.map((row) => ({ chunkId: Number(row.chunk_id), similarity: Number(row.similarity) }));
}

/**
 * `searchVectors`' rows (`chunk_id`, `similarity`, best first) through `wrap`, which may
 * select more about them in the same statement (it gets the ranking query; `$1` is the team).
 */
export async function rankVectors(
  sql: SqlConnection,
  request: VectorQuery,
  wrap: (ranking: string) => string,
  // biome-ignore lint/suspicious/noExplicitAny: the wrapped query chooses the columns
): Promise<any[]> {
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
    wrap(`SELECT e.chunk_id, 1 - (e.embedding::${cast} <=> $2::${cast}) AS similarity
     FROM chunk_embeddings AS e
     WHERE e.model = ${literal} AND e.team_id = $1 ${chunkFilter}
     ORDER BY ${distance} LIMIT $3`);
  const exact = async () =>
    // `+ 0` hides the indexed expression: the planner scans the team's rows and sorts them.
    (await sql.executeSql(query(`(e.embedding::${cast} <=> $2::${cast}) + 0`), values)).rows;
  if (request.teamChunks <= (request.exactScanMaxChunks ?? EXACT_SCAN_MAX_CHUNKS)) return exact();
  const efSearch = Math.max(request.efSearch, request.limit);
  const walk = query(`e.embedding::${cast} <=> $2::${cast}`);
  const rows =
    request.sessionEfSearch !== undefined && request.sessionEfSearch >= efSearch
      ? (await sql.executeSql(walk, values)).rows
      : await sql.transaction(async (transaction) => {
          const settings = { ...vectorSessionSettings(efSearch) };
          await transaction.executeSql(
            `SELECT ${Object.entries(settings)
              .map(([name, value]) => `set_config('${name}', '${value}', true)`)
              .join(', ')}`,
          );
          return (await transaction.executeSql(walk, values)).rows;
        });
  return rows.length < request.limit ? exact() : rows;
}

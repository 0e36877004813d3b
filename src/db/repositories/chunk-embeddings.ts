import { createHash } from 'node:crypto';
import type { SqlExecutor } from '../sql-connection.js';
import { indexedVectorType } from '../vector-index.js';

/**
 * Creates the HNSW index of one model's vectors: a partial expression index, since the table holds
 * vectors of any dimension and each model has one. Idempotent.
 */
export async function ensureVectorIndex(sql: SqlExecutor, model: string, dimensions: number): Promise<void> {
  const { cast, operators } = indexedVectorType(dimensions);
  const name = `chunk_embeddings_hnsw_${createHash('sha256').update(`${model}/${dimensions}`).digest('hex').slice(0, 16)}`;
  const literal = `'${model.replaceAll("'", "''")}'`;
  await sql.executeSql(
    `CREATE INDEX IF NOT EXISTS ${name} ON chunk_embeddings
     USING hnsw ((embedding::${cast}) ${operators}) WHERE model = ${literal}`,
  );
}

/** A chunk without a vector of the model, with what its embedding text is made of. */
export interface UnembeddedChunk {
  readonly id: number;
  readonly text: string;
  readonly headingPath: readonly string[];
  readonly title: string;
  readonly fileName: string | null;
}

/** The next chunks (by id, after `afterId`) that have no vector of `model`, across all teams. */
export async function chunksWithoutVectors(
  sql: SqlExecutor,
  model: string,
  afterId: number,
  limit: number,
): Promise<UnembeddedChunk[]> {
  const { rows } = await sql.executeSql<{
    id: string | number;
    text: string;
    heading_path: string[] | null;
    title: string;
    file_name: string | null;
  }>(
    `SELECT c.id, c.text, c.heading_path, d.title, d.file_name FROM chunks c JOIN documents d ON d.id = c.document_id
     WHERE c.id > $2 AND NOT EXISTS (SELECT 1 FROM chunk_embeddings e WHERE e.chunk_id = c.id AND e.model = $1)
     ORDER BY c.id LIMIT ${Math.trunc(limit)}`,
    [model, afterId],
  );
  return rows.map((row) => ({
    id: Number(row.id),
    text: String(row.text),
    headingPath: row.heading_path ?? [],
    title: String(row.title),
    fileName: row.file_name ?? null,
  }));
}

/** Deletes every vector of another model than `model`; answers how many went. */
export async function deleteOtherModelsVectors(sql: SqlExecutor, model: string): Promise<number> {
  const { rows } = await sql.executeSql<{ removed: number }>(
    'DELETE FROM chunk_embeddings WHERE model <> $1 RETURNING 1 AS removed',
    [model],
  );
  return rows.length;
}

import { createHash } from 'node:crypto';
import { insertEmbeddings } from '../db/repositories/documents.js';
import type { SqlExecutor } from '../db/sql-connection.js';
import { indexedVectorType } from '../db/vector-index.js';
import { contextualText } from './document.js';
import type { ChunkEmbedder, IndexingDependencies } from './indexing-dependencies.js';

/** Chunks embedded per round: one statement to read, one to write, a few embedding batches. */
const CHUNKS_PER_ROUND = 256;

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

/** Asks the model for one vector to learn its dimension, then makes sure its index exists. */
export async function prepareVectorIndex(sql: SqlExecutor, embedder: ChunkEmbedder): Promise<number> {
  const [probe] = await embedder.embed(['dimension probe']);
  const dimensions = probe?.length ?? 0;
  await ensureVectorIndex(sql, embedder.model, dimensions);
  return dimensions;
}

/**
 * Embeds every chunk that has no vector of the configured model (stored before embeddings were
 * on, or under another model), then deletes other models' vectors: search never mixes two
 * models, and a changed model re-embeds everything. Safe to run twice at once (writes are upserts).
 */
export async function embedStaleChunks(
  deps: Pick<IndexingDependencies, 'sql' | 'embedder'>,
  signal: AbortSignal,
): Promise<{ embedded: number; removed: number }> {
  const { sql, embedder } = deps;
  if (embedder === undefined) return { embedded: 0, removed: 0 };
  let embedded = 0;
  let lastId = 0;
  for (;;) {
    signal.throwIfAborted();
    const { rows } = await sql.executeSql(
      `SELECT c.id, c.text, c.heading_path, d.title FROM chunks c JOIN documents d ON d.id = c.document_id
       WHERE c.id > $2 AND NOT EXISTS (SELECT 1 FROM chunk_embeddings e WHERE e.chunk_id = c.id AND e.model = $1)
       ORDER BY c.id LIMIT ${CHUNKS_PER_ROUND}`,
      [embedder.model, lastId],
    );
    if (rows.length === 0) break;
    const texts = rows.map((row) =>
      contextualText(String(row.title), { text: String(row.text), headingPath: row.heading_path ?? [] }),
    );
    const vectors = await embedder.embed(texts, signal);
    await insertEmbeddings(
      sql,
      null,
      embedder.model,
      rows.map((row, index) => ({ chunkId: Number(row.id), vector: vectors[index] ?? [] })),
    );
    embedded += rows.length;
    lastId = Number(rows.at(-1)?.id ?? lastId);
  }
  const { rows: removed } = await sql.executeSql(
    'DELETE FROM chunk_embeddings WHERE model <> $1 RETURNING 1',
    [embedder.model],
  );
  return { embedded, removed: removed.length };
}

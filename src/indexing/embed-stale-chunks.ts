import {
  chunksWithoutVectors,
  deleteOtherModelsVectors,
  ensureVectorIndex,
} from '../db/repositories/chunk-embeddings.js';
import { insertEmbeddingsInStatements, rowStatementSizer } from '../db/repositories/documents.js';
import type { SqlExecutor } from '../db/sql-connection.js';
import { contextualText } from './document.js';
import type { ChunkEmbedder, IndexingDependencies } from './indexing-dependencies.js';

/** Chunks embedded per round: one statement to read, one to write, a few embedding batches. */
const CHUNKS_PER_ROUND = 256;

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
  // On PGlite each vector costs milliseconds of its one thread: a round's 256 in one statement would
  // hold every request for most of a second.
  const sizer = rowStatementSizer(sql);
  let embedded = 0;
  let lastId = 0;
  for (;;) {
    signal.throwIfAborted();
    const rows = await chunksWithoutVectors(sql, embedder.model, lastId, CHUNKS_PER_ROUND);
    if (rows.length === 0) break;
    const texts = rows.map((row) =>
      contextualText(row.title, { text: row.text, headingPath: row.headingPath }, row.fileName),
    );
    const vectors = await embedder.embed(texts, signal);
    await insertEmbeddingsInStatements(
      sql,
      sizer,
      null,
      embedder.model,
      rows.map((row, index) => ({ chunkId: row.id, vector: vectors[index] ?? [] })),
    );
    embedded += rows.length;
    lastId = rows.at(-1)?.id ?? lastId;
  }
  return { embedded, removed: await deleteOtherModelsVectors(sql, embedder.model) };
}

/** How vectors are indexed (HNSW, pgvector): shared by the indexing that builds and the search that uses the index. */

/** pgvector's HNSW indexes `vector` up to 2,000 dimensions and `halfvec` up to 4,000. */
const MAX_VECTOR_INDEX_DIMENSIONS = 2000;
const MAX_HALFVEC_INDEX_DIMENSIONS = 4000;

/**
 * The type a model's vectors are cast to in its HNSW index, and so in every query that should
 * use that index: `vector(d)`, or `halfvec(d)` past 2,000 dimensions (e.g. 3,072 for
 * text-embedding-3-large).
 */
export function indexedVectorType(dimensions: number): { cast: string; operators: string } {
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > MAX_HALFVEC_INDEX_DIMENSIONS) {
    throw new Error(
      `cannot index vectors of ${dimensions} dimensions (pgvector's HNSW takes at most ${MAX_HALFVEC_INDEX_DIMENSIONS}): set EMBEDDING_DIMENSIONS lower`,
    );
  }
  return dimensions <= MAX_VECTOR_INDEX_DIMENSIONS
    ? { cast: `vector(${dimensions})`, operators: 'vector_cosine_ops' }
    : { cast: `halfvec(${dimensions})`, operators: 'halfvec_cosine_ops' };
}

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

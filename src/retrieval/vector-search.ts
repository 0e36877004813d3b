import {
  type ChunkHitRow,
  rankChunksByVector,
  type SimilarChunk,
  type VectorRanking,
  vectorHits,
} from '../db/repositories/search.js';
import type { SqlConnection } from '../db/sql-connection.js';

/** A vector search of one team's chunks (the statement and its HNSW strategy are db/repositories/search.ts's). */
export type VectorQuery = VectorRanking;
export type VectorMatch = SimilarChunk;

/** Nearest chunks of one team by cosine distance, best first. */
export function searchVectors(sql: SqlConnection, request: VectorQuery): Promise<VectorMatch[]> {
  return rankChunksByVector(sql, request);
}

/** `searchVectors` with each chunk's document (its similarity as `score`), read in the same statement. */
export function searchVectorHits(sql: SqlConnection, request: VectorQuery): Promise<ChunkHitRow[]> {
  return vectorHits(sql, request);
}

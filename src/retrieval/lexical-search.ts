import {
  type ChunkHitRow,
  type LexicalRanking,
  type LexicalResult,
  lexicalHits,
  type RankedChunk,
  rankChunksLexically,
} from '../db/repositories/search.js';
import type { SqlExecutor } from '../db/sql-connection.js';
import type { ParsedQuery } from './query-text.js';
import type { DocumentSource } from './search-types.js';
import type { TeamStatistics } from './team-statistics.js';
import type { TermFrequencyCache } from './term-frequency-cache.js';

export interface LexicalQuery {
  readonly teamId: number;
  /** The access lists the reader may open (db/repositories/access-lists.ts). */
  readonly accessListIds: readonly number[];
  readonly query: ParsedQuery;
  readonly limit: number;
  readonly connectorIds?: readonly number[] | undefined;
  readonly sources?: readonly DocumentSource[] | undefined;
  /** Postings read per query term, best first; 0 reads them all (exact BM25). */
  readonly maxPostingsPerTerm: number;
  /** Common terms' document frequencies, remembered across queries. */
  readonly frequencies?: TermFrequencyCache | undefined;
}

export type LexicalMatch = RankedChunk;

/**
 * Okapi BM25 over the team's postings (the statement is db/repositories/search.ts's): the document
 * frequencies of common terms come from `frequencies` when it knows them, and those the statement
 * had to count are remembered there for later queries.
 */
export async function searchLexical(
  sql: SqlExecutor,
  statistics: TeamStatistics,
  request: LexicalQuery,
): Promise<LexicalMatch[]> {
  return remembered(request, await rankChunksLexically(sql, lexicalRanking(statistics, request)));
}

/** `searchLexical` with each chunk's document, read in the same statement. */
export async function searchLexicalHits(
  sql: SqlExecutor,
  statistics: TeamStatistics,
  request: LexicalQuery,
): Promise<ChunkHitRow[]> {
  return remembered(request, await lexicalHits(sql, lexicalRanking(statistics, request)));
}

function lexicalRanking(statistics: TeamStatistics, request: LexicalQuery): LexicalRanking {
  return {
    teamId: request.teamId,
    accessListIds: request.accessListIds,
    text: request.query.text,
    phrases: request.query.phrases,
    limit: request.limit,
    teamChunks: statistics.chunks,
    averageLength: statistics.averageLength,
    maxPostingsPerTerm: request.maxPostingsPerTerm,
    knownFrequencies: request.frequencies?.candidates(request.teamId, request.query.text) ?? new Map(),
    connectorIds: request.connectorIds,
    sources: request.sources,
  };
}

function remembered<Row>(request: LexicalQuery, result: LexicalResult<Row>): Row[] {
  if (result.countedFrequencies.length > 0) {
    request.frequencies?.remember(request.teamId, result.countedFrequencies);
  }
  return result.rows;
}

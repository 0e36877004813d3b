import {
  type ChunkHitRow,
  foldTeamTermChunks,
  type LexicalRanking,
  type LexicalResult,
  lexicalHits,
  type RankedChunk,
  rankChunksLexically,
} from '../db/repositories/search.js';
import type { SqlExecutor } from '../db/sql-connection.js';
import type { BackgroundFolds } from './background-folds.js';
import type { ParsedQuery } from './query-text.js';
import type { DocumentSource } from './search-types.js';
import type { TeamStatistics } from './team-statistics.js';

export interface LexicalQuery {
  readonly teamId: number;
  /** The access lists the reader may open (db/repositories/access-lists.ts). */
  readonly accessListIds: readonly number[];
  readonly query: ParsedQuery;
  readonly limit: number;
  readonly connectorIds?: readonly number[] | undefined;
  readonly sources?: readonly DocumentSource[] | undefined;
  /** Where the document-frequency rows the ranking found crowded are folded. */
  readonly folds?: BackgroundFolds | undefined;
}

export type LexicalMatch = RankedChunk;

/**
 * Exact Okapi BM25 over the team's postings (the statement, MaxScore over impact-ordered postings,
 * is db/repositories/search.ts's); the terms whose document-frequency rows it found crowded are
 * folded for later searches.
 */
export async function searchLexical(
  sql: SqlExecutor,
  statistics: TeamStatistics,
  request: LexicalQuery,
): Promise<LexicalMatch[]> {
  return withCrowdedTermsFolded(
    sql,
    request,
    await rankChunksLexically(sql, lexicalRanking(statistics, request)),
  );
}

/** `searchLexical` with each chunk's document, read in the same statement. */
export async function searchLexicalHits(
  sql: SqlExecutor,
  statistics: TeamStatistics,
  request: LexicalQuery,
): Promise<ChunkHitRow[]> {
  return withCrowdedTermsFolded(sql, request, await lexicalHits(sql, lexicalRanking(statistics, request)));
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
    connectorIds: request.connectorIds,
    sources: request.sources,
  };
}

function withCrowdedTermsFolded<Row>(
  sql: SqlExecutor,
  request: LexicalQuery,
  result: LexicalResult<Row>,
): Row[] {
  const { teamId } = request;
  const terms = result.crowdedTerms;
  if (terms.length > 0) request.folds?.request(teamId, () => foldTeamTermChunks(sql, teamId, terms));
  return result.rows;
}

import type { SqlExecutor } from '../db/sql-connection.js';
import type { ParsedQuery } from './query-text.js';
import type { DocumentSource } from './search-types.js';
import type { TeamStatistics } from './team-statistics.js';

/**
 * BM25's parameters. k1 1.2, b 0.75 (Robertson's defaults) scored best on SciFact over
 * PostgreSQL's English analysis among the usual settings (bench/eval-scifact).
 */
export const BM25 = { k1: 1.2, b: 0.75 } as const;

/** The query's distinct lexemes ($2 is its text), computed once per statement (an init plan). */
const QUERY_LEXEMES = `ARRAY(SELECT DISTINCT lexeme FROM unnest(to_tsvector('english', $2::text)))`;

export interface LexicalQuery {
  readonly teamId: number;
  readonly query: ParsedQuery;
  readonly limit: number;
  readonly connectorIds?: readonly number[] | undefined;
  readonly sources?: readonly DocumentSource[] | undefined;
}

export interface LexicalMatch {
  readonly chunkId: number;
  readonly score: number;
}

/**
 * Okapi BM25 over the team's postings (`chunk_terms`), in one statement. The query is analysed by
 * PostgreSQL's English configuration, as the chunks were (Snowball stemming, stop words), so
 * identifiers like `ERR-4021` or `v2.3.1` become the same lexemes on both sides. Each query term
 * reads one range of the covering index: its postings in this team, whose count is the term's
 * document frequency. IDF is Lucene's, `ln(1 + (N − df + ½) / (df + ½))`, never negative.
 *
 * Quoted phrases restrict the candidates to chunks containing them (GIN on `search` with
 * `phraseto_tsquery`); connector and source filters apply inside each term's index range, while
 * document frequencies stay those of the whole team.
 */
export async function searchLexical(
  sql: SqlExecutor,
  statistics: TeamStatistics,
  request: LexicalQuery,
): Promise<LexicalMatch[]> {
  if (statistics.chunks === 0 || request.query.text === '') return [];
  const values: unknown[] = [
    request.teamId,
    request.query.text,
    statistics.chunks,
    Math.max(statistics.averageLength, 1),
    request.limit,
  ];
  const parameter = (value: unknown): string => {
    values.push(value);
    return `$${values.length}`;
  };
  const filters: string[] = [];
  if (request.connectorIds !== undefined && request.connectorIds.length > 0) {
    filters.push(`p.connector_id = ANY(${parameter(request.connectorIds)}::int[])`);
  }
  if (request.sources !== undefined && request.sources.length > 0) {
    filters.push(`p.source = ANY(${parameter(request.sources)}::text[])`);
  }
  if (request.query.phrases.length > 0) {
    const phrases = request.query.phrases
      .map((phrase) => `phraseto_tsquery('english', ${parameter(phrase)}::text)`)
      .join(' && ');
    filters.push(`p.chunk_id IN (SELECT id FROM chunks WHERE team_id = $1 AND search @@ (${phrases}))`);
  }
  const filtered = filters.length > 0;
  const bm25 = (idf: string) => `${idf} * p.frequency * ${BM25.k1 + 1}::float8
    / (p.frequency + ${BM25.k1}::float8 * (${1 - BM25.b}::float8 + ${BM25.b}::float8 * p.chunk_length / $4::float8))`;
  const idf = (df: string) => `ln(1 + ($3::float8 - ${df} + 0.5::float8) / (${df} + 0.5::float8))`;
  // Unfiltered, one pass: the index returns each term's postings together (it is ordered by
  // term), so a window counts the term's document frequency without a second scan or a join.
  const { rows } = await sql.executeSql(
    filtered
      ? `WITH weights AS (
           SELECT p.term, ${idf('count(*)')} AS idf FROM chunk_terms AS p
           WHERE p.team_id = $1 AND p.term = ANY(${QUERY_LEXEMES}) GROUP BY p.term
         )
         SELECT p.chunk_id, sum(${bm25('w.idf')}) AS score
         FROM chunk_terms AS p JOIN weights AS w USING (term)
         WHERE p.team_id = $1 AND ${filters.join(' AND ')}
         GROUP BY p.chunk_id ORDER BY score DESC, p.chunk_id LIMIT $5`
      : `SELECT p.chunk_id, sum(${bm25('p.idf')}) AS score
         FROM (
           SELECT chunk_id, frequency, chunk_length, ${idf('count(*) OVER (PARTITION BY term)')} AS idf
           FROM chunk_terms WHERE team_id = $1 AND term = ANY(${QUERY_LEXEMES})
         ) AS p
         GROUP BY p.chunk_id ORDER BY score DESC, p.chunk_id LIMIT $5`,
    values,
  );
  return rows.map((row) => ({ chunkId: Number(row.chunk_id), score: Number(row.score) }));
}

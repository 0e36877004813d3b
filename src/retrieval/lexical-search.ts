import type { SqlExecutor } from '../db/sql-connection.js';
import type { ParsedQuery } from './query-text.js';
import type { DocumentSource } from './search-types.js';
import type { TeamStatistics } from './team-statistics.js';
import type { TermFrequencyCache } from './term-frequency-cache.js';

/**
 * BM25's parameters. k1 1.2, b 0.75 (Robertson's defaults) scored best on SciFact over
 * PostgreSQL's English analysis among the usual settings (bench/eval-scifact).
 */
export const BM25 = { k1: 1.2, b: 0.75 } as const;

/** The query's distinct lexemes ($2 is its text). */
const QUERY_LEXEMES = `ARRAY(SELECT DISTINCT lexeme FROM unnest(to_tsvector('english', $2::text)))`;

export interface LexicalQuery {
  readonly teamId: number;
  readonly query: ParsedQuery;
  readonly limit: number;
  readonly connectorIds?: readonly number[] | undefined;
  readonly sources?: readonly DocumentSource[] | undefined;
  /** Postings read per query term, best first; 0 reads them all (exact BM25). */
  readonly maxPostingsPerTerm: number;
  /** Common terms' document frequencies, remembered across queries. */
  readonly frequencies?: TermFrequencyCache | undefined;
}

export interface LexicalMatch {
  readonly chunkId: number;
  readonly score: number;
}

/**
 * Okapi BM25 over the team's postings (`chunk_terms`), in one statement. The query is analysed by
 * PostgreSQL's English configuration, as the chunks were (Snowball stemming, stop words), so
 * identifiers like `ERR-4021` or `v2.3.1` become the same lexemes on both sides. IDF is Lucene's,
 * `ln(1 + (N − df + ½) / (df + ½))`, never negative, over the whole team.
 *
 * Each query term reads its postings in this team from the covering index, best impact first
 * (`postingImpactSql`), at most `maxPostingsPerTerm` of them: exact BM25 while every term has
 * fewer postings than that; beyond it a very common term adds its weight only to the chunks where
 * it counts most, which bounds a query's work in a big team (bench/search) at a cost measured in
 * bench/eval-scifact. 0 reads every posting. A term's document frequency is the number of rows
 * read when the budget was not reached, else one index-only count, which `frequencies` then
 * remembers for later queries (the statement returns it as `counted_frequencies`).
 *
 * Quoted phrases restrict the candidates to chunks containing them (GIN on `search` with
 * `phraseto_tsquery`); connector and source filters apply inside each term's index range.
 */
export async function searchLexical(
  sql: SqlExecutor,
  statistics: TeamStatistics,
  request: LexicalQuery,
): Promise<LexicalMatch[]> {
  const rows = await rankLexical(sql, statistics, request, (ranking) => ranking);
  return rows.map((row) => ({ chunkId: Number(row.chunk_id), score: Number(row.score) }));
}

/**
 * `searchLexical`'s rows (`chunk_id`, `score`, best first) through `wrap`, which may select more
 * about them in the same statement (it gets the ranking query; `$1` is the team).
 */
export async function rankLexical(
  sql: SqlExecutor,
  statistics: TeamStatistics,
  request: LexicalQuery,
  wrap: (ranking: string) => string,
  // biome-ignore lint/suspicious/noExplicitAny: the wrapped query chooses the columns
): Promise<any[]> {
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
  const budget = request.maxPostingsPerTerm;
  const bounded = budget > 0;
  // Rows read are the term's whole postings (its df) only when unfiltered and under the budget.
  const countedByReading = filters.length === 0 ? (bounded ? `read < ${budget}` : 'true') : 'false';
  const known = request.frequencies?.candidates(request.teamId, request.query.text) ?? new Map();
  const knownFrequency =
    known.size === 0
      ? 'NULL::bigint'
      : `(${parameter([...known.values()])}::bigint[])[array_position(${parameter([...known.keys()])}::text[], term)]`;
  // NULLS LAST as in the index (drizzle's DESC), so that each scan stops after the budget
  // instead of reading and sorting the term's every posting.
  const { rows } = await sql.executeSql(
    wrap(`WITH postings AS MATERIALIZED (
       SELECT t.term, p.chunk_id, p.frequency, p.chunk_length
       FROM unnest(${QUERY_LEXEMES}) AS t(term)
       CROSS JOIN LATERAL (
         SELECT p.chunk_id, p.frequency, p.chunk_length FROM chunk_terms AS p
         WHERE p.team_id = $1 AND p.term = t.term ${filters.map((filter) => `AND ${filter}`).join(' ')}
         ${bounded ? `ORDER BY p.impact DESC NULLS LAST LIMIT ${budget}` : ''}
       ) AS p
     ), frequencies AS (
       SELECT term, known IS NULL AND NOT (${countedByReading}) AS counted,
         CASE WHEN known IS NOT NULL THEN known WHEN ${countedByReading} THEN read ELSE
           (SELECT count(*) FROM chunk_terms AS c WHERE c.team_id = $1 AND c.term = g.term) END AS df
       FROM (SELECT term, ${knownFrequency} AS known, count(*) AS read FROM postings GROUP BY term) AS g
     ), weights AS (
       SELECT term, ln(1 + ($3::float8 - df + 0.5::float8) / (df + 0.5::float8)) AS idf FROM frequencies
     )
     SELECT p.chunk_id, sum(
       w.idf * p.frequency * ${BM25.k1 + 1}::float8
       / (p.frequency + ${BM25.k1}::float8 * (${1 - BM25.b}::float8 + ${BM25.b}::float8 * p.chunk_length / $4::float8))
     ) AS score,
     (SELECT json_object_agg(term, df) FROM frequencies WHERE counted) AS counted_frequencies
     FROM postings AS p JOIN weights AS w USING (term)
     GROUP BY p.chunk_id ORDER BY score DESC, p.chunk_id LIMIT $5`),
    values,
  );
  const counted = rows[0]?.counted_frequencies as Record<string, number | string> | null | undefined;
  if (counted != null) {
    request.frequencies?.remember(
      request.teamId,
      Object.entries(counted).map(([term, frequency]) => [term, Number(frequency)] as const),
    );
  }
  return rows;
}

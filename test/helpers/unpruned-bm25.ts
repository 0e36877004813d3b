import type { LexicalRanking, RankedChunk } from '../../src/db/repositories/search.js';
import type { SqlExecutor } from '../../src/db/sql-connection.js';

/**
 * Okapi BM25 of every chunk in scope holding a query term, best first: every posting of every
 * term read and scored, each term's document frequency counted from the postings. Written apart
 * from the service's pruned statement, as the reference it must equal (k1 1.2, b 0.75, Lucene's
 * idf). Quoted phrases are not supported here.
 */
export async function scoreEveryPosting(sql: SqlExecutor, ranking: LexicalRanking): Promise<RankedChunk[]> {
  const { rows } = await sql.executeSql<{ chunk_id: string | number; score: number | string }>(
    `WITH terms AS (
       SELECT t.term, ln(1 + ($3::float8 - d.df + 0.5) / (d.df + 0.5)) AS idf
       FROM unnest(ARRAY(SELECT DISTINCT lexeme FROM unnest(to_tsvector('english', $2::text)))) AS t(term),
         LATERAL (SELECT count(*)::float8 AS df FROM chunk_terms WHERE team_id = $1 AND term = t.term) AS d
     )
     SELECT p.chunk_id, sum(t.idf * (p.frequency * 2.2) / (p.frequency + 1.2 * (0.25 + 0.75 * p.chunk_length / $4::float8))) AS score
     FROM terms AS t CROSS JOIN LATERAL (
       SELECT chunk_id, frequency, chunk_length FROM chunk_terms
       WHERE team_id = $1 AND term = t.term AND access_list_id = ANY($5::int[])
     ) AS p
     GROUP BY p.chunk_id ORDER BY score DESC, p.chunk_id`,
    [
      ranking.teamId,
      ranking.text,
      ranking.teamChunks,
      Math.max(ranking.averageLength, 1),
      ranking.accessListIds,
    ],
  );
  return rows.map((row) => ({ chunkId: Number(row.chunk_id), score: Number(row.score) }));
}

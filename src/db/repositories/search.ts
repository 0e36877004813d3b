import type { SqlConnection, SqlExecutor } from '../sql-connection.js';
import { indexedVectorType, vectorSessionSettings } from '../vector-index.js';
import { parameterIn } from './parameters.js';

/**
 * The search statements: BM25 over the postings, cosine kNN over the vectors, and the chunks they
 * rank read with their documents. Every statement names the team (`$1`); nothing here can reach
 * another team's rows, and every one keeps to the access lists its reader may open
 * (`ChunkScope.accessListIds`, from access-lists.ts) inside the index scans, before ranking.
 * The ranking logic around them (fusion, caches) is retrieval's.
 */

/**
 * BM25's parameters. k1 1.2, b 0.75 (Robertson's defaults) scored best on SciFact over
 * PostgreSQL's English analysis among the usual settings (bench/eval-scifact).
 */
export const BM25 = { k1: 1.2, b: 0.75 } as const;

/**
 * Below this many chunks a team's vectors are compared exactly (one index range of the team's
 * rows, then a sort): cheaper than the HNSW graph, and exact.
 */
export const EXACT_SCAN_MAX_CHUNKS = 5_000;

/** The query's distinct lexemes ($2 is its text). */
const QUERY_LEXEMES = `ARRAY(SELECT DISTINCT lexeme FROM unnest(to_tsvector('english', $2::text)))`;

/** Which of the team's chunks a ranking may return. */
export interface ChunkScope {
  readonly teamId: number;
  /**
   * The access lists whose chunks the reader may see (`readableAccessListIds`). Always a filter,
   * even when it names every list: a list created after it was read is not the reader's.
   */
  readonly accessListIds: readonly number[];
  readonly connectorIds?: readonly number[] | undefined;
  /** Document sources (`googledrive`, `wiki`, `upload`). */
  readonly sources?: readonly string[] | undefined;
}

export interface LexicalRanking extends ChunkScope {
  /** The query text (PostgreSQL's English analysis makes its lexemes) and its quoted phrases. */
  readonly text: string;
  readonly phrases: readonly string[];
  readonly limit: number;
  /** BM25's N and avgdl for the team. */
  readonly teamChunks: number;
  readonly averageLength: number;
}

/**
 * A ranking's rows, and the query's terms whose document-frequency rows (`team_term_chunks`) were
 * many: a caller folds them (`foldTeamTermChunks`) so that later searches read fewer.
 */
export interface LexicalResult<Row> {
  readonly rows: Row[];
  readonly crowdedTerms: readonly string[];
}

export interface RankedChunk {
  readonly chunkId: number;
  readonly score: number;
}

/** A ranked chunk with its document, as results and answers show it. */
export interface ChunkHitRow {
  readonly id: string | number;
  readonly text: string;
  readonly heading_path: string[] | null;
  readonly page_labels: string[] | null;
  readonly source: string;
  readonly connector_id: number | null;
  readonly document_id: string | number;
  readonly external_id: string;
  readonly title: string;
  readonly file_name: string | null;
  readonly url: string | null;
  readonly mime_type: string | null;
  readonly created_at: string | Date;
  readonly source_modified_at: string | Date | null;
  readonly score: number;
}

interface ScoredRow {
  readonly chunk_id: string | number;
  readonly score: number | string;
  readonly crowded_terms?: string[] | null;
}

/** A term's rows in `team_term_chunks` beyond which a search asks for them to be folded. */
export const FOLD_TERM_CHUNKS_AFTER_ROWS = 16;

/**
 * The reference length of a posting's impact (`postingImpactSql`): an impact times
 * (k1 + 1) · max(1, avgdl / it) bounds the posting's BM25 term-frequency part at any avgdl.
 */
const IMPACT_REFERENCE_LENGTH = 150;

/**
 * Slack on the bounds: impacts are stored as float4 (a relative error below 1e-7) and sums of
 * float8 differ in their last bits by the order they are added in.
 */
const BOUND_SLACK = 1e-6;

/** Okapi BM25 ranking of the team's chunks (see `runLexical`): chunk ids and scores, best first. */
export async function rankChunksLexically(
  sql: SqlExecutor,
  ranking: LexicalRanking,
): Promise<LexicalResult<RankedChunk>> {
  const result = await runLexical<ScoredRow>(sql, ranking, (statement) => statement);
  return {
    rows: result.rows.map((row) => ({ chunkId: Number(row.chunk_id), score: Number(row.score) })),
    crowdedTerms: result.crowdedTerms,
  };
}

/** The same ranking read with each chunk's document, in one statement. */
export function lexicalHits(sql: SqlExecutor, ranking: LexicalRanking): Promise<LexicalResult<ChunkHitRow>> {
  return runLexical<ChunkHitRow & Pick<ScoredRow, 'crowded_terms'>>(
    sql,
    ranking,
    withDocuments('score', ['crowded_terms']),
  );
}

/**
 * A chunk's BM25 score for one term: `idf`, the posting's `frequency` and `length` ($3 is N, $4
 * avgdl). Every path of the ranking scores with this one expression, summed in term order, so a
 * chunk gets the same score to the last bit however it was found.
 */
const termScore = (idf: string, frequency: string, length: string) =>
  `${idf} * ${frequency} * ${BM25.k1 + 1}::float8 / (${frequency} + ${BM25.k1}::float8 * (${1 - BM25.b}::float8 + ${BM25.b}::float8 * ${length} / $4::float8))`;

/**
 * Exact Okapi BM25 over the team's postings (`chunk_terms`), top `limit`, in one statement that
 * reads only the postings that can change the top: MaxScore over impact-ordered postings. The
 * query is analysed by PostgreSQL's English configuration, as the chunks were (Snowball stemming,
 * stop words), so identifiers like `ERR-4021` or `v2.3.1` become the same lexemes on both sides.
 * IDF is Lucene's, `ln(1 + (N − df + ½) / (df + ½))`, never negative, over the whole team, with
 * each term's df read from `team_term_chunks`, which the writes keep (migration 0012).
 *
 * 1. Seed: each term's best `limit` postings by impact (the covering index's order). Its
 *    `limit`-th impact bounds what any chunk not among them gets from the term (`bound`: idf ×
 *    impact × (k1 + 1) × max(1, avgdl / 150), see `postingImpactSql`); a term read to its end
 *    bounds at 0.
 * 2. θ, a floor of the k-th score: the seed's best chunks (by what the seed read of them, and by
 *    that plus what they may still get) scored exactly, their other postings by primary key.
 * 3. MaxScore: terms by bound, ascending; those whose bounds together stay below θ cannot make a
 *    chunk the seed missed reach θ, so only the other ("essential") terms are read further, each
 *    only down to the impact that can still reach θ given every other term's bound (`floor`).
 * 4. Every chunk read whose partial score plus the bounds of the terms not read for it can reach
 *    θ (raised to the k-th partial score if that is higher) is scored exactly: what was read of
 *    it, and by primary key its postings of the terms that might still hold it. The best `limit`
 *    are the answer, equal to scoring every posting (lexical-ranking.test.ts); each chunk's score
 *    is summed in term order, so it is the same to the last bit however the chunk was found.
 *
 * Quoted phrases restrict the candidates to chunks containing them (GIN on `search` with
 * `phraseto_tsquery`); access-list, connector and source filters apply inside each term's index
 * range, before ranking.
 */
async function runLexical<Row extends Pick<ScoredRow, 'crowded_terms'>>(
  sql: SqlExecutor,
  ranking: LexicalRanking,
  wrap: (statement: string) => string,
): Promise<LexicalResult<Row>> {
  if (ranking.teamChunks === 0 || ranking.text === '') return { rows: [], crowdedTerms: [] };
  const values: unknown[] = [
    ranking.teamId,
    ranking.text,
    ranking.teamChunks,
    Math.max(ranking.averageLength, 1),
    ranking.limit,
  ];
  const parameter = parameterIn(values);
  const filters: string[] = [];
  // `+ 0`: a filter on the index-only scan's rows, never an index condition, which would read a
  // term's postings out of impact order (all of them, then a sort) instead of the best first.
  filters.push(`p.access_list_id + 0 = ANY(${parameter(ranking.accessListIds)}::int[])`);
  if (ranking.connectorIds !== undefined && ranking.connectorIds.length > 0) {
    filters.push(`p.connector_id = ANY(${parameter(ranking.connectorIds)}::int[])`);
  }
  if (ranking.sources !== undefined && ranking.sources.length > 0) {
    filters.push(`p.source = ANY(${parameter(ranking.sources)}::text[])`);
  }
  if (ranking.phrases.length > 0) {
    const phrases = ranking.phrases
      .map((phrase) => `phraseto_tsquery('english', ${parameter(phrase)}::text)`)
      .join(' && ');
    filters.push(`p.chunk_id IN (SELECT id FROM chunks WHERE team_id = $1 AND search @@ (${phrases}))`);
  }
  const filtered = filters.map((filter) => `AND ${filter}`).join(' ');
  const scale = `${(BM25.k1 + 1) * (1 + BOUND_SLACK)}::float8 * greatest(1, $4::float8 / ${IMPACT_REFERENCE_LENGTH})`;
  const slack = `${1 + BOUND_SLACK}::float8`;
  // A chunk's posting of a term, by primary key. LIMIT (there is one) keeps it a lookup per pair
  // rather than a join the planner might answer by reading every posting of the terms.
  const postingOf = (chunk: string, term: string) =>
    `SELECT x.frequency, x.chunk_length FROM chunk_terms AS x WHERE x.chunk_id = ${chunk} AND x.term = ${term} LIMIT 1`;
  const { rows } = await sql.executeSql<Row>(
    wrap(`WITH terms AS MATERIALIZED (
       SELECT t.term, s.rows,
         ln(1 + ($3::float8 - least(s.df, $3::float8) + 0.5::float8) / (least(s.df, $3::float8) + 0.5::float8)) AS idf
       FROM unnest(${QUERY_LEXEMES}) AS t(term)
       CROSS JOIN LATERAL (
         SELECT coalesce(sum(d.chunks), 0)::float8 AS df, count(*) AS rows
         FROM team_term_chunks AS d WHERE d.team_id = $1 AND d.term = t.term
       ) AS s
       WHERE s.df > 0
     ), seed AS MATERIALIZED (
       SELECT t.term, p.chunk_id, p.impact, p.frequency, p.chunk_length
       FROM terms AS t CROSS JOIN LATERAL (
         SELECT p.chunk_id, p.impact, p.frequency, p.chunk_length FROM chunk_terms AS p
         WHERE p.team_id = $1 AND p.term = t.term ${filtered}
         ORDER BY p.impact DESC NULLS LAST, p.chunk_id LIMIT $5
       ) AS p
     ), bounds AS MATERIALIZED (
       -- last: the seed's last posting of the term (where reading it further would go on).
       SELECT t.term, t.idf, l.last, l.last_chunk, t.idf * l.last * ${scale} AS bound
       FROM terms AS t JOIN (
         SELECT term, CASE WHEN count(*) < $5 THEN 0 ELSE min(impact) END::float8 AS last,
           (array_agg(chunk_id ORDER BY impact, chunk_id DESC))[1] AS last_chunk
         FROM seed GROUP BY term
       ) AS l USING (term)
     ), seed_partial AS MATERIALIZED (
       SELECT s.chunk_id, sum(${termScore('b.idf', 's.frequency', 's.chunk_length')}) AS partial,
         sum(b.bound) AS read_bound
       FROM seed AS s JOIN bounds AS b USING (term) GROUP BY s.chunk_id
     ), seed_best AS (
       -- The seed's best chunks by what it read of them, and by what they may still get...
       (SELECT chunk_id FROM seed_partial ORDER BY partial DESC LIMIT $5)
       UNION
       (SELECT chunk_id FROM seed_partial ORDER BY partial - read_bound DESC LIMIT $5)
     ), seed_floor AS MATERIALIZED (
       -- ...scored exactly: the k-th of them is a floor of the k-th score overall.
       SELECT coalesce((
         SELECT sum(${termScore('t.idf', 'x.frequency', 'x.chunk_length')}) AS score
         FROM seed_best AS c CROSS JOIN terms AS t
         CROSS JOIN LATERAL (${postingOf('c.chunk_id', 't.term')}) AS x
         GROUP BY c.chunk_id ORDER BY score DESC LIMIT 1 OFFSET $5 - 1
       ), 0) AS theta
     ), essential AS MATERIALIZED (
       SELECT e.*, e.idf * e.floor * ${scale} AS unread_bound FROM (
         SELECT b.term, b.idf, b.last, b.last_chunk,
           greatest((f.theta - (b.total - b.bound)) / (b.idf * ${scale}) * ${1 - BOUND_SLACK}::float8, 0) AS floor
         FROM (SELECT *, sum(bound) OVER (ORDER BY bound, term) AS cumulative, sum(bound) OVER () AS total FROM bounds) AS b,
           seed_floor AS f
         WHERE b.last > 0 AND b.cumulative * ${slack} >= f.theta
       ) AS e
     ), unread AS MATERIALIZED (
       -- The most a chunk can still get from a term where nothing of it was read.
       SELECT b.term, b.idf, coalesce(e.unread_bound, b.bound) AS bound
       FROM bounds AS b LEFT JOIN essential AS e USING (term)
     ), read AS MATERIALIZED (
       SELECT term, chunk_id, frequency, chunk_length FROM seed
       UNION ALL
       -- The rest of each essential term down to its floor, past the seed's last posting.
       SELECT e.term, p.chunk_id, p.frequency, p.chunk_length
       FROM essential AS e CROSS JOIN LATERAL (
         SELECT p.chunk_id, p.frequency, p.chunk_length FROM chunk_terms AS p
         WHERE p.team_id = $1 AND p.term = e.term AND p.impact <= e.last AND p.impact >= e.floor
           AND (p.impact < e.last OR p.chunk_id > e.last_chunk) ${filtered}
       ) AS p
     ), candidates AS MATERIALIZED (
       SELECT r.chunk_id, sum(u.bound) AS read_bound,
         sum(${termScore('u.idf', 'r.frequency', 'r.chunk_length')}) AS partial
       FROM read AS r JOIN unread AS u USING (term) GROUP BY r.chunk_id
     ), theta AS (
       SELECT greatest(
           (SELECT partial FROM candidates ORDER BY partial DESC LIMIT 1 OFFSET $5 - 1),
           (SELECT theta FROM seed_floor), 0) AS theta,
         (SELECT sum(bound) FROM unread) AS unread
     ), contenders AS MATERIALIZED (
       SELECT c.chunk_id FROM candidates AS c, theta
       WHERE c.partial + (theta.unread - c.read_bound) * ${slack} >= theta.theta
     )
     SELECT r.chunk_id, r.score,
       (SELECT array_agg(term) FROM terms WHERE rows > ${FOLD_TERM_CHUNKS_AFTER_ROWS}) AS crowded_terms
     FROM (
       -- Exact scores: what was read of a contender, and its postings of the terms that were
       -- not read for it and might hold it, by primary key.
       SELECT chunk_id, sum(score ORDER BY term) AS score FROM (
         SELECT r.chunk_id, r.term, ${termScore('u.idf', 'r.frequency', 'r.chunk_length')} AS score
         FROM read AS r JOIN contenders AS c USING (chunk_id) JOIN unread AS u USING (term)
         UNION ALL
         SELECT c.chunk_id, u.term, ${termScore('u.idf', 'x.frequency', 'x.chunk_length')}
         FROM contenders AS c JOIN unread AS u ON u.bound > 0
         CROSS JOIN LATERAL (${postingOf('c.chunk_id', 'u.term')}) AS x
         WHERE NOT EXISTS (SELECT 1 FROM read AS r WHERE r.chunk_id = c.chunk_id AND r.term = u.term)
       ) AS exact GROUP BY chunk_id
     ) AS r
     ORDER BY r.score DESC, r.chunk_id LIMIT $5`),
    values,
  );
  return { rows, crowdedTerms: rows[0]?.crowded_terms ?? [] };
}

export interface VectorRanking extends ChunkScope {
  /** The model whose vectors are searched (as stored in `chunk_embeddings.model`). */
  readonly model: string;
  readonly vector: readonly number[];
  readonly limit: number;
  readonly teamChunks: number;
  readonly efSearch: number;
  /**
   * The `hnsw.ef_search` every connection was opened with (`vectorSessionSettings`), if they
   * were: a query that needs no more than that runs alone.
   */
  readonly sessionEfSearch?: number | undefined;
  /** Teams up to this size are searched exactly; default EXACT_SCAN_MAX_CHUNKS. */
  readonly exactScanMaxChunks?: number;
}

export interface SimilarChunk {
  readonly chunkId: number;
  /** Cosine similarity, 1 for the same direction. */
  readonly similarity: number;
}

/** Nearest chunks of the team by cosine distance (see `runVectors`), best first. */
export async function rankChunksByVector(
  sql: SqlConnection,
  ranking: VectorRanking,
): Promise<SimilarChunk[]> {
  const rows = await runVectors<{ chunk_id: string | number; similarity: number | string }>(
    sql,
    ranking,
    (statement) => statement,
  );
  return rows.map((row) => ({ chunkId: Number(row.chunk_id), similarity: Number(row.similarity) }));
}

/** The same ranking read with each chunk's document (`score` is the similarity), in one statement. */
export function vectorHits(sql: SqlConnection, ranking: VectorRanking): Promise<ChunkHitRow[]> {
  return runVectors<ChunkHitRow>(sql, ranking, withDocuments('similarity'));
}

/**
 * Nearest chunks of one team by cosine distance. The tenant filter is inside the query that walks
 * the HNSW index, and pgvector 0.8's iterative scan (`strict_order`) keeps walking until enough
 * rows pass it: a plain filtered HNSW query stops after `ef_search` candidates and returns too
 * few for a small team in a big database. Small teams, and any scan that still came back short,
 * are answered exactly.
 */
async function runVectors<Row>(
  sql: SqlConnection,
  ranking: VectorRanking,
  wrap: (statement: string) => string,
): Promise<Row[]> {
  if (ranking.teamChunks === 0 || ranking.vector.length === 0) return [];
  const { cast } = indexedVectorType(ranking.vector.length);
  const literal = `'${ranking.model.replaceAll("'", "''")}'`;
  const values: unknown[] = [ranking.teamId, `[${ranking.vector.join(',')}]`, ranking.limit];
  const filters: string[] = [];
  values.push(ranking.accessListIds);
  const accessFilter = `AND e.access_list_id = ANY($${values.length}::int[])`;
  if (ranking.connectorIds !== undefined && ranking.connectorIds.length > 0) {
    values.push(ranking.connectorIds);
    filters.push(`c.connector_id = ANY($${values.length}::int[])`);
  }
  if (ranking.sources !== undefined && ranking.sources.length > 0) {
    values.push(ranking.sources);
    filters.push(`c.source = ANY($${values.length}::text[])`);
  }
  const chunkFilter =
    filters.length === 0
      ? ''
      : `AND EXISTS (SELECT 1 FROM chunks AS c WHERE c.id = e.chunk_id AND ${filters.join(' AND ')})`;
  // The model is a literal, as in the partial index's predicate, so the planner can match them.
  const query = (distance: string) =>
    wrap(`SELECT e.chunk_id, 1 - (e.embedding::${cast} <=> $2::${cast}) AS similarity
     FROM chunk_embeddings AS e
     WHERE e.model = ${literal} AND e.team_id = $1 ${accessFilter} ${chunkFilter}
     ORDER BY ${distance} LIMIT $3`);
  const exact = async () =>
    // `+ 0` hides the indexed expression: the planner scans the team's rows and sorts them.
    (await sql.executeSql<Row>(query(`(e.embedding::${cast} <=> $2::${cast}) + 0`), values)).rows;
  if (ranking.teamChunks <= (ranking.exactScanMaxChunks ?? EXACT_SCAN_MAX_CHUNKS)) return exact();
  const efSearch = Math.max(ranking.efSearch, ranking.limit);
  const walk = query(`e.embedding::${cast} <=> $2::${cast}`);
  const rows =
    ranking.sessionEfSearch !== undefined && ranking.sessionEfSearch >= efSearch
      ? (await sql.executeSql<Row>(walk, values)).rows
      : await sql.transaction(async (transaction) => {
          const settings = { ...vectorSessionSettings(efSearch) };
          await transaction.executeSql(
            `SELECT ${Object.entries(settings)
              .map(([name, value]) => `set_config('${name}', '${value}', true)`)
              .join(', ')}`,
          );
          return (await transaction.executeSql<Row>(walk, values)).rows;
        });
  return rows.length < ranking.limit ? exact() : rows;
}

/** What a hit shows of its chunk (`c`) and document (`d`). */
const HIT_COLUMNS = `c.id, c.text, c.heading_path, c.page_labels, c.source, c.connector_id,
  d.id AS document_id, d.external_id, d.title, d.file_name, d.url, d.mime_type, d.created_at,
  d.source_modified_at`;

/**
 * Wraps a ranking statement (`chunk_id` and a score column, `$1` the team) so that the same
 * statement reads each ranked chunk with its document, best first; the team is checked once more.
 */
function withDocuments(
  score: 'score' | 'similarity',
  passedOn: readonly string[] = [],
): (ranking: string) => string {
  const columns = [`r.${score} AS score`, ...passedOn.map((column) => `r.${column}`), HIT_COLUMNS];
  return (ranking) => `SELECT ${columns.join(', ')}
    FROM (${ranking}) AS r
    JOIN chunks AS c ON c.id = r.chunk_id AND c.team_id = $1
    JOIN documents AS d ON d.id = c.document_id
    ORDER BY r.${score} DESC, r.chunk_id`;
}

/**
 * Ranked chunks of the team with their documents, in rank order. A chunk replaced between ranking
 * and reading is left out rather than shown stale.
 */
export async function readChunkHits(
  sql: SqlExecutor,
  scope: Pick<ChunkScope, 'teamId' | 'accessListIds'>,
  ranked: readonly RankedChunk[],
): Promise<ChunkHitRow[]> {
  if (ranked.length === 0) return [];
  const { rows } = await sql.executeSql<Omit<ChunkHitRow, 'score'>>(
    // The chunks are found by primary key alone (MATERIALIZED: planned on its own), the team and
    // access checked on the rows found. With the team's condition in the same scan, PGlite (no
    // column statistics: it never analyses) guessed a team holds 31 chunks and read every id of
    // the team's index to intersect them (0.8 ms instead of 0.5 on SciFact's 6,283 chunks).
    `WITH c AS MATERIALIZED (
       SELECT id, text, heading_path, page_labels, source, connector_id, document_id, team_id, access_list_id
       FROM chunks WHERE id = ANY($1::bigint[])
     )
     SELECT ${HIT_COLUMNS} FROM c JOIN documents AS d ON d.id = c.document_id
     WHERE c.team_id = $2 AND c.access_list_id = ANY($3::int[])`,
    [ranked.map((match) => match.chunkId), scope.teamId, scope.accessListIds],
    { prepared: true, readOnly: true },
  );
  const byId = new Map(rows.map((row) => [Number(row.id), row]));
  return ranked.flatMap(({ chunkId, score }) => {
    const row = byId.get(chunkId);
    return row === undefined ? [] : [{ ...row, score }];
  });
}

/**
 * These chunks of the team as hits show them, whatever their access lists (what a reader may open
 * is checked where they are ranked): for a team's hits kept in memory beside its postings.
 */
export async function readTeamHitRows(
  sql: SqlExecutor,
  teamId: number,
  chunkIds: readonly number[],
): Promise<Omit<ChunkHitRow, 'score'>[]> {
  if (chunkIds.length === 0) return [];
  const { rows } = await sql.executeSql<Omit<ChunkHitRow, 'score'>>(
    `SELECT ${HIT_COLUMNS} FROM chunks AS c JOIN documents AS d ON d.id = c.document_id
     WHERE c.id = ANY($1::bigint[]) AND c.team_id = $2 ORDER BY c.id`,
    [chunkIds, teamId],
    { readOnly: true },
  );
  return rows;
}

/**
 * What BM25 needs to know about a team's whole collection, N and avgdl, summed from its rows of
 * `team_chunk_totals`; `rows` says how many were summed (`foldTeamChunkTotals` keeps them few).
 */
export async function readTeamChunkTotals(
  sql: SqlExecutor,
  teamId: number,
): Promise<{ chunks: number; averageLength: number; rows: number }> {
  const { rows } = await sql.executeSql<{ chunks: number; length: number; rows: number }>(
    `SELECT coalesce(sum(chunks), 0)::float8 AS chunks, coalesce(sum(lexical_length), 0)::float8 AS length,
       count(*)::int AS rows
     FROM team_chunk_totals WHERE team_id = $1`,
    [teamId],
  );
  const chunks = Number(rows[0]?.chunks ?? 0);
  const length = Number(rows[0]?.length ?? 0);
  return { chunks, averageLength: chunks > 0 ? length / chunks : 0, rows: Number(rows[0]?.rows ?? 0) };
}

/**
 * Replaces a team's rows of `team_chunk_totals` by their sum, in one statement: rows that writers
 * add meanwhile are not yet visible to it and stay, and a concurrent fold's rows are either
 * folded here or left whole, so the sum never changes.
 */
export async function foldTeamChunkTotals(sql: SqlExecutor, teamId: number): Promise<void> {
  await sql.executeSql(
    `WITH folded AS (DELETE FROM team_chunk_totals WHERE team_id = $1 RETURNING chunks, lexical_length)
     INSERT INTO team_chunk_totals (team_id, chunks, lexical_length)
     SELECT $1, sum(chunks), sum(lexical_length) FROM folded
     HAVING sum(chunks) <> 0 OR sum(lexical_length) <> 0`,
    [teamId],
  );
}

/** PostgreSQL's English analysis of each text: its lexemes with their counts, in the texts' order. */
export async function analyzeTexts(
  sql: SqlExecutor,
  texts: readonly string[],
): Promise<ReadonlyArray<ReadonlyMap<string, number>>> {
  if (texts.length === 0) return [];
  const { rows } = await sql.executeSql<{ position: string | number; lexeme: string; count: number }>(
    `SELECT t.position, l.lexeme, coalesce(array_length(l.positions, 1), 1) AS count
     FROM unnest($1::text[]) WITH ORDINALITY AS t(text, position)
     CROSS JOIN LATERAL unnest(to_tsvector('english', t.text)) AS l`,
    [texts],
  );
  const analysed = texts.map(() => new Map<string, number>());
  for (const row of rows) analysed[Number(row.position) - 1]?.set(String(row.lexeme), Number(row.count));
  return analysed;
}

/**
 * How many of the team's chunks hold each term, from `team_term_chunks` (a few rows each), and the
 * terms whose rows were many (see `LexicalResult`).
 */
export async function readTermChunks(
  sql: SqlExecutor,
  teamId: number,
  terms: readonly string[],
): Promise<{ chunks: Map<string, number>; crowdedTerms: string[] }> {
  if (terms.length === 0) return { chunks: new Map(), crowdedTerms: [] };
  const { rows } = await sql.executeSql<{ term: string; chunks: number | string; rows: number | string }>(
    `SELECT t.term, coalesce(sum(d.chunks), 0) AS chunks, count(d.chunks) AS rows
     FROM unnest($2::text[]) AS t(term)
     LEFT JOIN team_term_chunks AS d ON d.team_id = $1 AND d.term = t.term
     GROUP BY t.term`,
    [teamId, [...new Set(terms)]],
  );
  return {
    chunks: new Map(rows.map((row) => [String(row.term), Number(row.chunks)])),
    crowdedTerms: rows.filter((row) => Number(row.rows) > FOLD_TERM_CHUNKS_AFTER_ROWS).map((row) => row.term),
  };
}

/**
 * Replaces these terms' rows of `team_term_chunks` in a team by their sums, in one statement
 * (concurrent writers and folds are safe, as in `foldTeamChunkTotals`).
 */
export async function foldTeamTermChunks(
  sql: SqlExecutor,
  teamId: number,
  terms: readonly string[],
): Promise<void> {
  if (terms.length === 0) return;
  await sql.executeSql(
    `WITH folded AS (
       DELETE FROM team_term_chunks WHERE team_id = $1 AND term = ANY($2::text[]) RETURNING term, chunks
     )
     INSERT INTO team_term_chunks (team_id, term, chunks)
     SELECT $1, term, sum(chunks) FROM folded GROUP BY term HAVING sum(chunks) <> 0`,
    [teamId, [...new Set(terms)]],
  );
}

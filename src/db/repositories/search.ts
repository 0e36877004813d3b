import type { SqlConnection, SqlExecutor } from '../sql-connection.js';
import { indexedVectorType, vectorSessionSettings } from '../vector-index.js';

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
  /** Postings read per query term, best first; 0 reads them all (exact BM25). */
  readonly maxPostingsPerTerm: number;
  /** Document frequencies already known (remembered from earlier queries), by lexeme. */
  readonly knownFrequencies: ReadonlyMap<string, number>;
}

/** A ranking's rows and the document frequencies it had to count (to remember for later queries). */
export interface LexicalResult<Row> {
  readonly rows: Row[];
  readonly countedFrequencies: readonly (readonly [string, number])[];
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
  readonly counted_frequencies?: Record<string, number | string> | null;
}

/** Okapi BM25 ranking of the team's chunks (see `lexicalStatement`): chunk ids and scores, best first. */
export async function rankChunksLexically(
  sql: SqlExecutor,
  ranking: LexicalRanking,
): Promise<LexicalResult<RankedChunk>> {
  const result = await runLexical<ScoredRow>(sql, ranking, (statement) => statement);
  return {
    rows: result.rows.map((row) => ({ chunkId: Number(row.chunk_id), score: Number(row.score) })),
    countedFrequencies: result.countedFrequencies,
  };
}

/** The same ranking read with each chunk's document, in one statement. */
export function lexicalHits(sql: SqlExecutor, ranking: LexicalRanking): Promise<LexicalResult<ChunkHitRow>> {
  return runLexical<ChunkHitRow & Pick<ScoredRow, 'counted_frequencies'>>(
    sql,
    ranking,
    withDocuments('score', ['counted_frequencies']),
  );
}

/**
 * Okapi BM25 over the team's postings (`chunk_terms`), in one statement. The query is analysed by
 * PostgreSQL's English configuration, as the chunks were (Snowball stemming, stop words), so
 * identifiers like `ERR-4021` or `v2.3.1` become the same lexemes on both sides. IDF is Lucene's,
 * `ln(1 + (N − df + ½) / (df + ½))`, never negative, over the whole team.
 *
 * Each query term reads its postings in this team from the covering index, best impact first,
 * at most `maxPostingsPerTerm` of them: exact BM25 while every term has fewer postings than that;
 * beyond it a very common term adds its weight only to the chunks where it counts most, which
 * bounds a query's work in a big team (bench/search) at a cost measured in bench/eval-scifact. 0
 * reads every posting. A term's document frequency is the number of rows read when the budget was
 * not reached, else one index-only count, which the caller may remember (`countedFrequencies`).
 *
 * Quoted phrases restrict the candidates to chunks containing them (GIN on `search` with
 * `phraseto_tsquery`); connector and source filters apply inside each term's index range.
 */
async function runLexical<Row extends Pick<ScoredRow, 'counted_frequencies'>>(
  sql: SqlExecutor,
  ranking: LexicalRanking,
  wrap: (statement: string) => string,
): Promise<LexicalResult<Row>> {
  if (ranking.teamChunks === 0 || ranking.text === '') return { rows: [], countedFrequencies: [] };
  const values: unknown[] = [
    ranking.teamId,
    ranking.text,
    ranking.teamChunks,
    Math.max(ranking.averageLength, 1),
    ranking.limit,
  ];
  const parameter = (value: unknown): string => {
    values.push(value);
    return `$${values.length}`;
  };
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
  const budget = ranking.maxPostingsPerTerm;
  const bounded = budget > 0;
  // Rows read are the term's whole postings (its df) only when unfiltered and under the budget.
  const countedByReading = filters.length === 0 ? (bounded ? `read < ${budget}` : 'true') : 'false';
  const known = ranking.knownFrequencies;
  const knownFrequency =
    known.size === 0
      ? 'NULL::bigint'
      : `(${parameter([...known.values()])}::bigint[])[array_position(${parameter([...known.keys()])}::text[], term)]`;
  // NULLS LAST as in the index (drizzle's DESC), so that each scan stops after the budget
  // instead of reading and sorting the term's every posting.
  const { rows } = await sql.executeSql<Row>(
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
  const counted = rows[0]?.counted_frequencies;
  return {
    rows,
    countedFrequencies:
      counted == null
        ? []
        : Object.entries(counted).map(([term, frequency]) => [term, Number(frequency)] as const),
  };
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
    `SELECT ${HIT_COLUMNS} FROM chunks AS c JOIN documents AS d ON d.id = c.document_id
     WHERE c.id = ANY($1::bigint[]) AND c.team_id = $2 AND c.access_list_id = ANY($3::int[])`,
    [ranked.map((match) => match.chunkId), scope.teamId, scope.accessListIds],
  );
  const byId = new Map(rows.map((row) => [Number(row.id), row]));
  return ranked.flatMap(({ chunkId, score }) => {
    const row = byId.get(chunkId);
    return row === undefined ? [] : [{ ...row, score }];
  });
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

/** How many of the team's chunks hold each term (one index-only count of its postings each). */
export async function countTermChunks(
  sql: SqlExecutor,
  teamId: number,
  terms: readonly string[],
): Promise<Map<string, number>> {
  if (terms.length === 0) return new Map();
  const { rows } = await sql.executeSql<{ term: string; chunks: number | string }>(
    `SELECT t.term, (SELECT count(*) FROM chunk_terms AS c WHERE c.team_id = $1 AND c.term = t.term) AS chunks
     FROM unnest($2::text[]) AS t(term)`,
    [teamId, [...new Set(terms)]],
  );
  return new Map(rows.map((row) => [String(row.term), Number(row.chunks)]));
}

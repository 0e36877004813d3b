import type { Reader } from '../access.js';
import type { EmbeddingModel } from '../adapters/embeddings/embedding-model.js';
import { readableAccessListIds } from '../db/repositories/access-lists.js';
import {
  analyzeTexts,
  foldTeamTermChunks,
  type RankedChunk,
  readChunkHits,
  readTermChunks,
} from '../db/repositories/search.js';
import { runAsSearch, type SqlConnection } from '../db/sql-connection.js';
import { ServiceError } from '../errors.js';
import { BackgroundFolds } from './background-folds.js';
import { fuseRankings } from './fusion.js';
import {
  type ChangeMarks,
  type LexicalIndexLogger,
  type MemoryRanking,
  TeamLexicalIndexes,
} from './lexical-index/team-lexical-indexes.js';
import { type LexicalQuery, searchLexical, searchLexicalHits } from './lexical-search.js';
import { type ParsedQuery, parseQuery } from './query-text.js';
import { searchHitOf } from './search-hit.js';
import type { PreparedSearch, SearchHit, SearchRequest, TeamSearch, TermStatistics } from './search-types.js';
import { type TeamStatistics, TeamStatisticsCache } from './team-statistics.js';
import { searchVectorHits, searchVectors, type VectorQuery } from './vector-search.js';

export interface TeamSearchSettings {
  /** RRF weight of the vector ranking (lexical weighs 1); 0 leaves vectors out of hybrid search. */
  readonly denseWeight: number;
  readonly rrfK: number;
  readonly efSearch: number;
  /** The `hnsw.ef_search` connections were opened with (`vectorSessionSettings`), if they were. */
  readonly sessionEfSearch?: number | undefined;
  /** Teams up to this many chunks get exact vector search (tests lower it to reach the HNSW path). */
  readonly exactScanMaxChunks?: number;
  /** Memory for teams' postings, so BM25 ranks in memory (`TeamLexicalIndexes`); 0 or absent: none. */
  readonly memoryIndexBytes?: number;
  /** Where this process hears of teams' changes on PostgreSQL (a `SearchFollower`), if it does. */
  readonly changeMarks?: ChangeMarks;
}

/** A team's postings in memory not brought up to date for this long are loaded again. */
export const MEMORY_INDEX_RELOAD_AFTER_MS = 6 * 3_600_000;
/** After a load that failed or did not fit, the team is ranked in the database this long. */
const MEMORY_INDEX_RETRY_AFTER_MS = 10 * 60_000;
/**
 * While a team's postings are being written and searched, they are brought up to date in the
 * background this often (on PostgreSQL, a statement that finds whether the team changed: a
 * fraction of a millisecond), until no change was found, or no search ranked, for this long.
 */
const MEMORY_INDEX_FOLLOW_EVERY_MS = 25;
const MEMORY_INDEX_FOLLOW_FOR_MS = 2_000;

/** The team searched and the access lists its reader may open. */
interface ReaderScope {
  readonly teamId: number;
  readonly accessListIds: readonly number[];
}

/** Each ranking fused looks this deep: enough for a chunk ranked low by one to be lifted by the other. */
const MIN_FUSION_DEPTH = 50;

/**
 * Hybrid search of one team's chunks: BM25 over the lexical postings, cosine similarity over the
 * configured model's vectors (when embeddings are on), fused by weighted reciprocal rank fusion.
 * Every query names the team; nothing here can reach another team's rows.
 */
export class PostgresTeamSearch implements TeamSearch {
  private readonly statistics: TeamStatisticsCache;
  /** Folds of `team_term_chunks` that searches ask for. */
  private readonly folds = new BackgroundFolds();
  /** Teams' postings in this process, where BM25 ranks when they are loaded. */
  private readonly lexicalIndexes: TeamLexicalIndexes;

  constructor(
    private readonly sql: SqlConnection,
    /** The configured model, for query vectors; undefined when embeddings are off. */
    private readonly embeddingModel: EmbeddingModel | undefined,
    private readonly settings: TeamSearchSettings,
    logger?: LexicalIndexLogger,
  ) {
    this.statistics = new TeamStatisticsCache(sql);
    this.lexicalIndexes = new TeamLexicalIndexes(
      sql,
      {
        memoryBytes: settings.memoryIndexBytes ?? 0,
        reloadAfterMs: MEMORY_INDEX_RELOAD_AFTER_MS,
        retryAfterMs: MEMORY_INDEX_RETRY_AFTER_MS,
        followEveryMs: MEMORY_INDEX_FOLLOW_EVERY_MS,
        followForMs: MEMORY_INDEX_FOLLOW_FOR_MS,
        ...(settings.changeMarks === undefined ? {} : { changeMarks: settings.changeMarks }),
      },
      logger,
    );
  }

  /** A search's statements go before indexing's (`runAsSearch`). */
  search(request: SearchRequest): Promise<readonly SearchHit[]> {
    return runAsSearch(() => this.rank(request));
  }

  private async rank(request: SearchRequest): Promise<readonly SearchHit[]> {
    const mode = request.mode ?? 'hybrid';
    const query = parseQuery(request.query);
    // A quoted phrase is a constraint vectors cannot check: hybrid search keeps to BM25 then.
    const vectorsMayHelp =
      mode === 'hybrid' && this.embeddingModel !== undefined && query.phrases.length === 0;
    const useVectors = mode === 'dense' || (vectorsMayHelp && this.settings.denseWeight > 0);
    if (mode === 'dense' && this.embeddingModel === undefined) {
      throw new ServiceError(
        'bad_request',
        'Dense search needs embeddings: this server runs lexical search only (set EMBEDDING_PROVIDER).',
      );
    }
    const teamId = request.reader.teamId;
    // Ranked in memory, a search reads the reader's lists with the changes it syncs: one statement
    // before the hits' text instead of two.
    if (!useVectors && query.phrases.length === 0 && this.lexicalIndexes.holds(teamId)) {
      const statistics = await this.statistics.get(teamId);
      const ranked = await this.rankInMemory(statistics, request, query, request.topK);
      if (ranked !== undefined) {
        const scope = { teamId, accessListIds: ranked.accessListIds };
        const hits = await this.hydrateFromMemory(scope, ranked.chunks);
        request.signal?.throwIfAborted();
        return vectorsMayHelp ? this.withVectorsBelow(hits, scope, statistics.chunks, request) : hits;
      }
    }
    // The query's vector, when it will be needed, is asked for while the reader's lists are read.
    const embedding = useVectors ? this.embed(request) : undefined;
    const [statistics, accessListIds, vector] = await Promise.all([
      this.statistics.get(teamId),
      readableAccessListIds(this.sql, request.reader),
      embedding,
    ]);
    const scope = { teamId, accessListIds };
    const lexicalQuery = (limit: number) => ({
      ...scope,
      query,
      limit,
      folds: this.folds,
      connectorIds: request.connectorIds,
      sources: request.sources,
    });
    // One ranking alone is read with its documents in the same statement.
    if (mode === 'dense') {
      const query = this.vectorQuery(vector ?? [], scope, statistics.chunks, request.topK, request);
      return (await searchVectorHits(this.sql, query)).map(searchHitOf);
    }
    if (!useVectors) {
      const ranking = lexicalQuery(request.topK);
      const inMemory = (await this.rankInMemory(statistics, request, query, request.topK))?.chunks;
      const hits =
        inMemory === undefined
          ? (await searchLexicalHits(this.sql, statistics, ranking)).map(searchHitOf)
          : await this.hydrateFromMemory(scope, inMemory);
      request.signal?.throwIfAborted();
      return vectorsMayHelp ? this.withVectorsBelow(hits, scope, statistics.chunks, request) : hits;
    }
    const depth = Math.max(request.topK, MIN_FUSION_DEPTH);
    const rankLexically = async (ranking: LexicalQuery) =>
      (await this.rankInMemory(statistics, request, ranking.query, ranking.limit))?.chunks ??
      searchLexical(this.sql, statistics, ranking);
    const [lexical, dense] = await Promise.all([
      rankLexically(lexicalQuery(depth)),
      searchVectors(this.sql, this.vectorQuery(vector ?? [], scope, statistics.chunks, depth, request)),
    ]);
    request.signal?.throwIfAborted();
    const ranked = fuseRankings(
      [
        { ranking: lexical.map((match) => match.chunkId), weight: 1 },
        { ranking: dense.map((match) => match.chunkId), weight: this.settings.denseWeight },
      ],
      this.settings.rrfK,
      request.topK,
    );
    return this.hydrate(scope, ranked.slice(0, request.topK));
  }

  prepare(reader: Reader): PreparedSearch | undefined {
    return this.lexicalIndexes.prepare(reader);
  }

  /**
   * BM25 from the team's postings in memory, brought up to date first, with the reader's lists it
   * was filtered by; undefined when they are not loaded or the query has phrases (their positions
   * are only in the database).
   */
  private async rankInMemory(
    statistics: TeamStatistics,
    request: Pick<SearchRequest, 'reader' | 'connectorIds' | 'sources' | 'prepared'>,
    query: ParsedQuery,
    limit: number,
  ): Promise<MemoryRanking | undefined> {
    if (query.phrases.length > 0) return undefined;
    return this.lexicalIndexes.rank({
      reader: request.reader,
      text: query.text,
      limit,
      teamChunks: statistics.chunks,
      averageLength: statistics.averageLength,
      connectorIds: request.connectorIds,
      sources: request.sources,
      prepared: request.prepared,
    });
  }

  analyze(texts: readonly string[]): Promise<ReadonlyArray<ReadonlyMap<string, number>>> {
    return analyzeTexts(this.sql, texts);
  }

  /** N from the team's totals; each term's document frequency from the counts the writes keep. */
  async termStatistics(teamId: number, terms: readonly string[]): Promise<TermStatistics> {
    const [statistics, frequencies] = await Promise.all([
      this.statistics.get(teamId),
      readTermChunks(this.sql, teamId, terms),
    ]);
    const crowded = frequencies.crowdedTerms;
    if (crowded.length > 0) this.folds.request(teamId, () => foldTeamTermChunks(this.sql, teamId, crowded));
    return { chunks: statistics.chunks, documentFrequencies: frequencies.chunks };
  }

  /**
   * Vectors out of the fusion still fill in where BM25 runs out (no shared words at all): below
   * every lexical match, so they can only add results, never displace one.
   */
  private async withVectorsBelow(
    hits: readonly SearchHit[],
    scope: ReaderScope,
    teamChunks: number,
    request: SearchRequest,
  ): Promise<readonly SearchHit[]> {
    if (hits.length >= request.topK) return hits;
    const found = new Set(hits.map((hit) => hit.chunkId));
    const query = this.vectorQuery(await this.embed(request), scope, teamChunks, request.topK, request);
    const extra = (await searchVectors(this.sql, query))
      .filter((match) => !found.has(match.chunkId))
      .map((match) => ({ chunkId: match.chunkId, score: 0 }));
    return [...hits, ...(await this.hydrate(scope, extra))].slice(0, request.topK);
  }

  /** The question's vector by the configured model (none when embeddings are off). */
  private async embed(request: SearchRequest): Promise<readonly number[]> {
    const model = this.embeddingModel;
    if (model === undefined) return [];
    const [vector] = await model.embed([request.query], {
      purpose: 'query',
      ...(request.signal === undefined ? {} : { signal: request.signal }),
    });
    return vector ?? [];
  }

  /** The vector search of the question's vector among what the reader may open. */
  private vectorQuery(
    vector: readonly number[],
    scope: ReaderScope,
    teamChunks: number,
    limit: number,
    request: SearchRequest,
  ): VectorQuery {
    return {
      ...scope,
      model: this.embeddingModel?.id ?? '',
      vector,
      limit,
      teamChunks,
      efSearch: this.settings.efSearch,
      sessionEfSearch: this.settings.sessionEfSearch,
      ...(this.settings.exactScanMaxChunks === undefined
        ? {}
        : { exactScanMaxChunks: this.settings.exactScanMaxChunks }),
      connectorIds: request.connectorIds,
      sources: request.sources,
    };
  }

  /**
   * Chunks ranked in memory with their documents, in rank order: hits recent searches read are
   * kept beside the team's postings and dropped as the same sync tells them changed.
   */
  private async hydrateFromMemory(scope: ReaderScope, ranked: readonly RankedChunk[]): Promise<SearchHit[]> {
    return this.lexicalIndexes.hits(scope.teamId, ranked, (missing) =>
      readChunkHits(this.sql, scope, missing),
    );
  }

  /** The ranked chunks with their documents, in rank order; the team and access are checked once more. */
  private async hydrate(
    scope: ReaderScope,
    ranked: readonly { chunkId: number; score: number }[],
  ): Promise<SearchHit[]> {
    return (await readChunkHits(this.sql, scope, ranked)).map(searchHitOf);
  }
}

import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../test/helpers/seeded-random.js';
import {
  type ChunkAttributes,
  type IndexedPosting,
  type LexicalIndexHit,
  type LexicalIndexQuery,
  TeamLexicalIndex,
} from './team-lexical-index.js';

interface ModelChunk {
  readonly attributes: ChunkAttributes;
  readonly postings: readonly IndexedPosting[];
  /** The same postings by term, for the reference's lookups. */
  readonly frequencies: ReadonlyMap<string, number>;
}

const SOURCES = ['googledrive', 'wiki', 'upload'];
const ACCESS_LISTS = [11, 12, 13, 14, 15, 16];
const CONNECTORS = [null, 21, 22, 23];

/**
 * A random collection whose words follow Zipf's law (rank r drawn with weight 1/r), as text does:
 * a few terms in most chunks, most terms in a few. Chunk ids are large (beyond 2^32) and inserted
 * out of order, so slot order and id order differ.
 */
class ZipfCollection {
  readonly chunks = new Map<number, ModelChunk>();
  private readonly cumulative: Float64Array;
  private nextChunkId = 2 ** 33;

  constructor(
    readonly random: () => number,
    readonly vocabulary: number,
  ) {
    this.cumulative = new Float64Array(vocabulary);
    let total = 0;
    for (let rank = 0; rank < vocabulary; rank++) {
      total += 1 / (rank + 1);
      this.cumulative[rank] = total;
    }
  }

  /** A term rank drawn by Zipf's law (0 is the most common). */
  zipfRank(): number {
    const target = this.random() * (this.cumulative[this.vocabulary - 1] as number);
    let low = 0;
    let high = this.vocabulary - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((this.cumulative[middle] as number) < target) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  randomChunk(): ModelChunk {
    const length = 5 + Math.floor(this.random() * 396);
    const counts = new Map<string, number>();
    for (let token = 0; token < length; token++) {
      const term = termOf(this.zipfRank());
      counts.set(term, (counts.get(term) ?? 0) + 1);
    }
    return {
      attributes: {
        length,
        accessListId: pick(this.random, ACCESS_LISTS),
        connectorId: pick(this.random, CONNECTORS),
        source: pick(this.random, SOURCES),
      },
      postings: [...counts].map(([term, frequency]) => ({ term, frequency })),
      frequencies: counts,
    };
  }

  /** Adds `count` chunks to the model and the index, ids shuffled. */
  fill(index: TeamLexicalIndex, count: number): void {
    const ids = Array.from({ length: count }, () => (this.nextChunkId += 1 + Math.floor(this.random() * 5)));
    for (let at = ids.length - 1; at > 0; at--) {
      const other = Math.floor(this.random() * (at + 1));
      [ids[at], ids[other]] = [ids[other] as number, ids[at] as number];
    }
    for (const chunkId of ids) this.set(index, chunkId, this.randomChunk());
  }

  set(index: TeamLexicalIndex, chunkId: number, chunk: ModelChunk): void {
    this.chunks.set(chunkId, chunk);
    index.setChunk(chunkId, chunk.attributes, chunk.postings);
  }

  remove(index: TeamLexicalIndex, chunkId: number): void {
    this.chunks.delete(chunkId);
    index.removeChunk(chunkId);
  }

  /** Chunk ids in the model, in a random order. */
  sampleIds(count: number): number[] {
    const ids = [...this.chunks.keys()];
    const sample: number[] = [];
    for (let taken = 0; taken < count && ids.length > 0; taken++) {
      const at = Math.floor(this.random() * ids.length);
      sample.push(ids[at] as number);
      ids[at] = ids[ids.length - 1] as number;
      ids.pop();
    }
    return sample;
  }

  /** 1–10 distinct terms: mostly Zipf-drawn, some uniform over the vocabulary, now and then one no chunk holds. */
  randomTerms(): string[] {
    const count = 1 + Math.floor(this.random() * 10);
    const terms = new Set<string>();
    while (terms.size < count) {
      const draw = this.random();
      if (draw < 0.6) terms.add(termOf(this.zipfRank()));
      else if (draw < 0.95) terms.add(termOf(Math.floor(this.random() * this.vocabulary)));
      else terms.add(`absent${Math.floor(this.random() * 100)}`);
    }
    return [...terms];
  }

  /** Only the most common words: the hardest queries to prune. */
  commonTerms(): string[] {
    const count = 1 + Math.floor(this.random() * 5);
    const terms = new Set<string>();
    while (terms.size < count) terms.add(termOf(Math.floor(this.random() * 12)));
    return [...terms];
  }
}

function termOf(rank: number): string {
  return `w${rank}`;
}

function pick<T>(random: () => number, values: readonly T[]): T {
  return values[Math.floor(random() * values.length)] as T;
}

/** The team totals a caller would pass: N and avgdl over the model's chunks. */
function totals(collection: ZipfCollection): Pick<LexicalIndexQuery, 'teamChunks' | 'averageLength'> {
  let length = 0;
  for (const chunk of collection.chunks.values()) length += chunk.attributes.length;
  return { teamChunks: collection.chunks.size, averageLength: length / collection.chunks.size };
}

/**
 * The reference: BM25 exactly as search.ts's statement defines it, by reading every posting of
 * every chunk. Written from the formula, not from the index: df counted over the whole model,
 * each chunk's term scores added in the query's term order.
 */
function referenceScores(
  chunks: ReadonlyMap<number, ModelChunk>,
  query: LexicalIndexQuery,
): Map<number, number> {
  const n = query.teamChunks;
  const averageLength = Math.max(query.averageLength, 1);
  const idfs = new Map<string, number>();
  for (const term of query.terms) {
    let df = 0;
    for (const chunk of chunks.values()) if (chunk.frequencies.has(term)) df++;
    if (df === 0) continue;
    const d = Math.min(df, n);
    idfs.set(term, Math.log(1 + (n - d + 0.5) / (d + 0.5)));
  }
  const scores = new Map<number, number>();
  for (const [chunkId, chunk] of chunks) {
    const attributes = chunk.attributes;
    if (!query.accessListIds.includes(attributes.accessListId)) continue;
    if (query.connectorIds !== undefined && query.connectorIds.length > 0) {
      if (attributes.connectorId === null || !query.connectorIds.includes(attributes.connectorId)) continue;
    }
    if (
      query.sources !== undefined &&
      query.sources.length > 0 &&
      !query.sources.includes(attributes.source)
    ) {
      continue;
    }
    let score = 0;
    let matched = false;
    for (const term of query.terms) {
      const idf = idfs.get(term);
      const f = chunk.frequencies.get(term);
      if (idf === undefined || f === undefined) continue;
      // k1 = 1.2, b = 0.75, with the SQL's literals: (k1 + 1) = 2.2, (1 - b) = 0.25.
      score += (idf * f * 2.2) / (f + 1.2 * (0.25 + (0.75 * attributes.length) / averageLength));
      matched = true;
    }
    if (matched) scores.set(chunkId, score);
  }
  return scores;
}

function referenceTop(scores: ReadonlyMap<number, number>, limit: number): LexicalIndexHit[] {
  return [...scores]
    .map(([chunkId, score]) => ({ chunkId, score }))
    .sort((left, right) => right.score - left.score || left.chunkId - right.chunkId)
    .slice(0, limit);
}

const TOLERANCE = 1e-9;

function close(left: number, right: number): boolean {
  return Math.abs(left - right) <= TOLERANCE * Math.max(Math.abs(left), Math.abs(right));
}

/**
 * The index's top k against the reference: the same length, each hit's score the reference's
 * score for that chunk and the reference's score at that rank (so ids may differ only between
 * chunks whose scores are within the tolerance), no chunk twice, best first.
 */
function expectSameRanking(
  index: TeamLexicalIndex,
  collection: ZipfCollection,
  query: LexicalIndexQuery,
  scores = referenceScores(collection.chunks, query),
): void {
  const hits = index.rank(query);
  const expected = referenceTop(scores, query.limit);
  const context = JSON.stringify({ terms: query.terms, limit: query.limit });
  expect(hits.length, context).toBe(expected.length);
  expect(new Set(hits.map((hit) => hit.chunkId)).size, context).toBe(hits.length);
  for (const [rank, hit] of hits.entries()) {
    const ownScore = scores.get(hit.chunkId);
    const expectedHit = expected[rank] as LexicalIndexHit;
    expect(ownScore !== undefined && close(ownScore, hit.score), `${context} rank ${rank} own score`).toBe(
      true,
    );
    expect(close(hit.score, expectedHit.score), `${context} rank ${rank} score`).toBe(true);
    if (hit.chunkId !== expectedHit.chunkId) {
      expect(close(ownScore ?? 0, expectedHit.score), `${context} rank ${rank} id`).toBe(true);
    }
    if (rank > 0) {
      const previous = hits[rank - 1] as LexicalIndexHit;
      expect(
        previous.score > hit.score || (previous.score === hit.score && previous.chunkId < hit.chunkId),
        `${context} order`,
      ).toBe(true);
    }
  }
}

const DEPTHS = [1, 3, 10, 50];

function buildCollection(
  seed: number,
  chunks: number,
): { index: TeamLexicalIndex; collection: ZipfCollection } {
  const collection = new ZipfCollection(seededRandom(seed), 3_000);
  const index = new TeamLexicalIndex();
  collection.fill(index, chunks);
  return { index, collection };
}

let shared: { index: TeamLexicalIndex; collection: ZipfCollection } | undefined;

/** One collection for the tests that only read it (building one is most of a test's time). */
function sharedCollection(): { index: TeamLexicalIndex; collection: ZipfCollection } {
  shared ??= buildCollection(1, 2_500);
  return shared;
}

/** Compares many random queries at every depth; answers the number of comparisons made. */
function compareRandomQueries(
  index: TeamLexicalIndex,
  collection: ZipfCollection,
  queries: number,
  scope: Pick<LexicalIndexQuery, 'accessListIds' | 'connectorIds' | 'sources'> = {
    accessListIds: ACCESS_LISTS,
  },
): number {
  const statistics = totals(collection);
  let compared = 0;
  for (let made = 0; made < queries; made++) {
    const terms = made % 4 === 3 ? collection.commonTerms() : collection.randomTerms();
    const scores = referenceScores(collection.chunks, { terms, limit: 1, ...statistics, ...scope });
    for (const limit of DEPTHS) {
      expectSameRanking(index, collection, { terms, limit, ...statistics, ...scope }, scores);
      compared++;
    }
  }
  return compared;
}

describe('TeamLexicalIndex ranking', () => {
  it('ranks like BM25 over every posting, at every depth, for random and common-word queries', () => {
    const { index, collection } = sharedCollection();
    expect(compareRandomQueries(index, collection, 32)).toBe(128);
  });

  it('gives each chunk the score summed in the query term order, to the last bit', () => {
    const { index, collection } = sharedCollection();
    const statistics = totals(collection);
    for (let made = 0; made < 30; made++) {
      const terms = collection.randomTerms();
      const scores = referenceScores(collection.chunks, {
        terms,
        limit: 10,
        ...statistics,
        accessListIds: ACCESS_LISTS,
      });
      // Found by scanning or by probing, a chunk's score is the reference's float exactly.
      for (const limit of [3, 50]) {
        for (const hit of index.rank({ terms, limit, ...statistics, accessListIds: ACCESS_LISTS })) {
          expect(hit.score).toBe(scores.get(hit.chunkId));
        }
      }
    }
  });

  it('ranks only the chunks the reader may see, before the top k is taken', () => {
    const { index, collection } = sharedCollection();
    const statistics = totals(collection);
    const readable = [12, 15];
    compareRandomQueries(index, collection, 20, { accessListIds: readable });

    let changed = 0;
    for (let made = 0; made < 20; made++) {
      const terms = collection.randomTerms();
      const everything = index.rank({ terms, limit: 10, ...statistics, accessListIds: ACCESS_LISTS });
      const filtered = index.rank({ terms, limit: 10, ...statistics, accessListIds: readable });
      for (const hit of filtered) {
        expect(readable).toContain(collection.chunks.get(hit.chunkId)?.attributes.accessListId);
      }
      // A full page of readable chunks, not the readable remainder of the unfiltered page.
      const readableChunks = referenceScores(collection.chunks, {
        terms,
        limit: 10,
        ...statistics,
        accessListIds: readable,
      }).size;
      expect(filtered.length).toBe(Math.min(10, readableChunks));
      if (JSON.stringify(filtered) !== JSON.stringify(everything)) changed++;
    }
    expect(changed).toBeGreaterThan(10);
    expect(index.rank({ terms: ['w1'], limit: 10, ...statistics, accessListIds: [] })).toEqual([]);
    expect(index.rank({ terms: ['w1'], limit: 10, ...statistics, accessListIds: [999] })).toEqual([]);
  });

  it('keeps to the connectors and sources asked for', () => {
    const { index, collection } = sharedCollection();
    compareRandomQueries(index, collection, 10, { accessListIds: ACCESS_LISTS, connectorIds: [21, 23] });
    compareRandomQueries(index, collection, 10, { accessListIds: ACCESS_LISTS, sources: ['wiki'] });
    compareRandomQueries(index, collection, 10, {
      accessListIds: [11, 13, 16],
      connectorIds: [22],
      sources: ['googledrive', 'upload'],
    });
    // Empty filter lists mean no filter, as in the SQL.
    compareRandomQueries(index, collection, 5, {
      accessListIds: ACCESS_LISTS,
      connectorIds: [],
      sources: [],
    });
  });

  it('stays exact through removals and re-sets, and never returns a removed chunk', () => {
    const { index, collection } = buildCollection(5, 2_000);
    const removed = collection.sampleIds(300);
    for (const chunkId of removed) collection.remove(index, chunkId);
    for (const chunkId of collection.sampleIds(300)) collection.set(index, chunkId, collection.randomChunk());
    expect(index.chunkCount).toBe(1_700);
    compareRandomQueries(index, collection, 30);

    const statistics = totals(collection);
    const removedIds = new Set(removed);
    for (let made = 0; made < 20; made++) {
      const hits = index.rank({
        terms: collection.commonTerms(),
        limit: 50,
        ...statistics,
        accessListIds: ACCESS_LISTS,
      });
      for (const hit of hits) expect(removedIds.has(hit.chunkId)).toBe(false);
    }
  });

  it('stays exact after compaction, automatic or asked for, and after adding to a compacted index', () => {
    const { index, collection } = buildCollection(6, 2_000);
    const before = index.estimatedBytes();
    // Removing well over half the postings compacts by itself: the arrays shrink (without
    // compaction only the removed chunks' map entries would go, some 2 %).
    for (const chunkId of collection.sampleIds(1_400)) collection.remove(index, chunkId);
    expect(index.estimatedBytes()).toBeLessThan(before * 0.75);
    compareRandomQueries(index, collection, 15);

    collection.fill(index, 500);
    for (const chunkId of collection.sampleIds(300)) collection.set(index, chunkId, collection.randomChunk());
    index.compact();
    compareRandomQueries(index, collection, 15);
    collection.fill(index, 300);
    compareRandomQueries(index, collection, 10);
    expect(index.chunkCount).toBe(collection.chunks.size);
  });

  it('reads far fewer postings than the query terms hold when a rare term decides the top', () => {
    const { index, collection } = sharedCollection();
    const statistics = totals(collection);
    const common = termOf(0);
    const rare = [...Array(3_000).keys()]
      .map(termOf)
      .find((term) => index.documentFrequency(term) >= 15 && index.documentFrequency(term) <= 40) as string;
    const held = index.documentFrequency(common) + index.documentFrequency(rare);
    expect(index.documentFrequency(common)).toBeGreaterThan(2_000);

    const query = { terms: [common, rare], limit: 10, ...statistics, accessListIds: ACCESS_LISTS };
    expectSameRanking(index, collection, query);
    const work = index.lastRankWork;
    expect(work.postingsScored + work.lookups).toBeLessThan(held / 20);

    // The same for a reader who sees half the chunks: the rare term's readable chunks decide it too.
    const halfRare = [...Array(3_000).keys()]
      .map(termOf)
      .find((term) => index.documentFrequency(term) >= 60 && index.documentFrequency(term) <= 120) as string;
    const halfHeld = index.documentFrequency(common) + index.documentFrequency(halfRare);
    expectSameRanking(index, collection, {
      ...query,
      terms: [halfRare, common],
      accessListIds: [11, 12, 13],
    });
    expect(index.lastRankWork.postingsScored + index.lastRankWork.lookups).toBeLessThan(halfHeld / 20);

    // Common words alone: the best-bounded are read fully, the rest only looked up for contenders.
    const commonOnly = { ...query, terms: [termOf(0), termOf(1), termOf(2), termOf(3)] };
    expectSameRanking(index, collection, commonOnly);
    const commonHeld = commonOnly.terms.reduce((sum, term) => sum + index.documentFrequency(term), 0);
    expect(index.lastRankWork.postingsScored).toBeLessThan(commonHeld);
  });

  it('answers nothing for no terms, unknown terms, a zero limit or an empty team', () => {
    const { index, collection } = buildCollection(8, 200);
    const base = { limit: 10, ...totals(collection), accessListIds: ACCESS_LISTS };
    expect(index.rank({ ...base, terms: [] })).toEqual([]);
    expect(index.rank({ ...base, terms: ['absent'] })).toEqual([]);
    expect(index.rank({ ...base, terms: ['w1'], limit: 0 })).toEqual([]);
    expect(index.rank({ ...base, terms: ['w1'], teamChunks: 0 })).toEqual([]);
    expect(index.rank({ ...base, terms: ['w1', 'w1'] })).toEqual(index.rank({ ...base, terms: ['w1'] }));
    expect(index.rank({ ...base, terms: ['w1'], limit: 10_000 })).toHaveLength(index.documentFrequency('w1'));
    expect(() => index.rank({ ...base, terms: ['w1'], averageLength: Number.NaN })).toThrow(RangeError);
  });
});

describe('TeamLexicalIndex bookkeeping', () => {
  const wiki = (accessListId: number, length: number): ChunkAttributes => ({
    length,
    accessListId,
    connectorId: 1,
    source: 'wiki',
  });

  it('keeps document frequency, chunk and posting counts through set, replace and remove', () => {
    const index = new TeamLexicalIndex();
    index.setChunk(1, wiki(1, 10), [
      { term: 'alpha', frequency: 2 },
      { term: 'beta', frequency: 1 },
    ]);
    index.setChunk(2, wiki(1, 20), [
      { term: 'alpha', frequency: 1 },
      { term: 'gamma', frequency: 3 },
    ]);
    expect([index.chunkCount, index.postingCount]).toEqual([2, 4]);
    expect(['alpha', 'beta', 'gamma', 'delta'].map((term) => index.documentFrequency(term))).toEqual([
      2, 1, 1, 0,
    ]);

    // Replacing moves the chunk's postings: df drops where it lost a term, rises where it gained one.
    index.setChunk(1, wiki(2, 15), [{ term: 'delta', frequency: 1 }]);
    expect(index.hasChunk(1)).toBe(true);
    expect([index.chunkCount, index.postingCount]).toEqual([2, 3]);
    expect(['alpha', 'beta', 'gamma', 'delta'].map((term) => index.documentFrequency(term))).toEqual([
      1, 0, 1, 1,
    ]);

    index.removeChunk(2);
    index.removeChunk(2);
    index.removeChunk(404);
    expect(index.hasChunk(2)).toBe(false);
    expect([index.chunkCount, index.postingCount]).toEqual([1, 1]);
    expect(['alpha', 'gamma', 'delta'].map((term) => index.documentFrequency(term))).toEqual([0, 0, 1]);

    // An empty posting list removes the chunk.
    index.setChunk(1, wiki(2, 15), []);
    expect([index.chunkCount, index.postingCount, index.documentFrequency('delta')]).toEqual([0, 0, 0]);
    expect(index.hasChunk(1)).toBe(false);

    index.compact();
    expect([index.chunkCount, index.postingCount]).toEqual([0, 0]);
    index.setChunk(3, wiki(1, 5), [{ term: 'alpha', frequency: 1 }]);
    expect([index.chunkCount, index.postingCount, index.documentFrequency('alpha')]).toEqual([1, 1, 1]);
  });

  it('keeps counts equal to a model through random sets, replaces, removals and compactions', () => {
    const { index, collection } = buildCollection(9, 1_000);
    const check = () => {
      let postings = 0;
      const frequencies = new Map<string, number>();
      for (const chunk of collection.chunks.values()) {
        postings += chunk.postings.length;
        for (const posting of chunk.postings) {
          frequencies.set(posting.term, (frequencies.get(posting.term) ?? 0) + 1);
        }
      }
      expect(index.chunkCount).toBe(collection.chunks.size);
      expect(index.postingCount).toBe(postings);
      for (let rank = 0; rank < 3_000; rank += 7) {
        expect(index.documentFrequency(termOf(rank))).toBe(frequencies.get(termOf(rank)) ?? 0);
      }
    };
    check();
    for (let round = 0; round < 3; round++) {
      for (const chunkId of collection.sampleIds(300)) collection.remove(index, chunkId);
      for (const chunkId of collection.sampleIds(300))
        collection.set(index, chunkId, collection.randomChunk());
      collection.fill(index, 200);
      check();
    }
    index.compact();
    check();
  });

  it('refuses postings it cannot store faithfully, leaving the chunk as it was', () => {
    const index = new TeamLexicalIndex();
    index.setChunk(1, wiki(1, 10), [{ term: 'alpha', frequency: 2 }]);
    expect(() => index.setChunk(1, wiki(1, 10), [{ term: 'alpha', frequency: 70_000 }])).toThrow(RangeError);
    expect(() =>
      index.setChunk(1, wiki(1, 10), [
        { term: 'beta', frequency: 1 },
        { term: 'beta', frequency: 2 },
      ]),
    ).toThrow(RangeError);
    expect(() => index.setChunk(0, wiki(1, 10), [{ term: 'alpha', frequency: 1 }])).toThrow(RangeError);
    expect([index.postingCount, index.documentFrequency('alpha'), index.documentFrequency('beta')]).toEqual([
      1, 1, 0,
    ]);
  });

  it('estimates its memory from what it holds', () => {
    const { index } = buildCollection(10, 500);
    const perPosting = index.estimatedBytes() / index.postingCount;
    // 10 bytes of arrays a posting, with growth room, plus per-chunk and per-term overheads.
    expect(perPosting).toBeGreaterThan(10);
    expect(perPosting).toBeLessThan(40);
    index.compact();
    expect(index.estimatedBytes() / index.postingCount).toBeLessThan(perPosting);
  });
});

import { BM25 } from '../../db/repositories/search.js';

/** What ranking needs to know of a chunk besides its postings. */
export interface ChunkAttributes {
  /** BM25's document length (`chunk_terms.chunk_length`). */
  readonly length: number;
  readonly accessListId: number;
  readonly connectorId: number | null;
  /** Document source (`googledrive`, `wiki`, `upload`). */
  readonly source: string;
}

/** One of a chunk's terms and how often it occurs in the chunk. */
export interface IndexedPosting {
  readonly term: string;
  readonly frequency: number;
}

export interface LexicalIndexQuery {
  /** Distinct query terms, in the order their per-term scores are summed (the caller gives the database's ORDER BY term order). */
  readonly terms: readonly string[];
  readonly limit: number;
  /** BM25's N and avgdl, given by the caller (the team's totals, which count chunks with no postings too). */
  readonly teamChunks: number;
  readonly averageLength: number;
  /** Only chunks whose access list is one of these (filter BEFORE ranking: top k of readable chunks only). */
  readonly accessListIds: readonly number[];
  /** When given and non-empty: only chunks of these connectors / sources. */
  readonly connectorIds?: readonly number[] | undefined;
  readonly sources?: readonly string[] | undefined;
}

export interface LexicalIndexHit {
  readonly chunkId: number;
  readonly score: number;
}

/** What a `rank` call did: term scores it computed, and postings it searched for by chunk. */
export interface RankWork {
  readonly postingsScored: number;
  readonly lookups: number;
}

// The statement's constants (`termScore` in search.ts). JavaScript prints a double as the
// shortest text that parses back to it, so the SQL's float8 literals are these doubles exactly.
const K1 = BM25.k1;
const K1_PLUS_ONE = BM25.k1 + 1;
const ONE_MINUS_B = 1 - BM25.b;
const B = BM25.b;

/**
 * Relative slack on bounds and on partial scores compared with them: they are sums of the same
 * terms in another order (or of bounds), whose last bits differ. Pruning needs a bound that is
 * never below the score; 1e-9 is far above float8 rounding and far below any score gap that matters.
 */
const BOUND_SLACK = 1e-9;

/**
 * Frequencies are stored in 16 bits: PostgreSQL keeps at most 256 positions of a lexeme in a
 * tsvector, so `chunk_terms.frequency` stays far below this.
 */
const MAX_FREQUENCY = 0xffff;

/**
 * V8's costs for `estimatedBytes` beyond the typed arrays' contents: a posting list object with its
 * two typed arrays' objects and buffers, its term string and dictionary entry (fitted to Node 20's
 * heap on a 50k-term, 4.3M-posting index, where the estimate came within 3 % of the heap's growth);
 * a Map entry; a chunk group with its key and entries.
 */
const LIST_OVERHEAD_BYTES = 520;
const MAP_ENTRY_BYTES = 40;
const GROUP_BYTES = 150;

/** Compaction waits until dead postings outnumber live ones and are at least this many. */
const MIN_DEAD_POSTINGS_TO_COMPACT = 4096;

/** A chunk's BM25 score for one term: the SQL's expression, evaluated in the same order. */
function termScore(idf: number, frequency: number, length: number, averageLength: number): number {
  return (idf * frequency * K1_PLUS_ONE) / (frequency + K1 * (ONE_MINUS_B + (B * length) / averageLength));
}

/** Lucene's IDF as the SQL computes it, with df clamped to the team's N. */
function inverseDocumentFrequency(documentFrequency: number, teamChunks: number): number {
  const clamped = Math.min(documentFrequency, teamChunks);
  return Math.log(1 + (teamChunks - clamped + 0.5) / (clamped + 0.5));
}

function grownInt32(array: Int32Array, minimum: number) {
  const grown = new Int32Array(Math.max(minimum, array.length * 2, 8));
  grown.set(array);
  return grown;
}

function grownUint16(array: Uint16Array, minimum: number) {
  const grown = new Uint16Array(Math.max(minimum, array.length * 2, 8));
  grown.set(array);
  return grown;
}

function grownFloat64(array: Float64Array, minimum: number) {
  const grown = new Float64Array(Math.max(minimum, array.length * 2, 8));
  grown.set(array);
  return grown;
}

/**
 * One term's postings: chunk slots ascending (a chunk always gets a slot above every earlier one,
 * and its postings are appended then), with their frequencies. Postings of removed chunks stay
 * until compaction; `live` counts the others and is the term's document frequency.
 */
class PostingList {
  slots: Int32Array;
  frequencies: Uint16Array;
  size = 0;
  live = 0;
  /** Over every posting appended since the last compaction, dead ones too: a safe, if loose, bound. */
  maxFrequency = 0;
  minLength = Number.POSITIVE_INFINITY;

  constructor(
    readonly term: string,
    capacity = 4,
  ) {
    this.slots = new Int32Array(capacity);
    this.frequencies = new Uint16Array(capacity);
  }

  /** Appends a posting; answers how many bytes the list's arrays grew by (usually none). */
  append(slot: number, frequency: number, length: number): number {
    let grownBytes = 0;
    if (this.size === this.slots.length) {
      const before = this.byteLength;
      this.slots = grownInt32(this.slots, this.size + 1);
      this.frequencies = grownUint16(this.frequencies, this.size + 1);
      grownBytes = this.byteLength - before;
    }
    this.slots[this.size] = slot;
    this.frequencies[this.size] = frequency;
    this.size++;
    this.live++;
    if (frequency > this.maxFrequency) this.maxFrequency = frequency;
    if (length < this.minLength) this.minLength = length;
    return grownBytes;
  }

  get byteLength(): number {
    return this.slots.byteLength + this.frequencies.byteLength;
  }

  /** What V8 spends on the list besides its arrays, and on its dictionary entry (a rough figure). */
  get overheadBytes(): number {
    return LIST_OVERHEAD_BYTES + this.term.length * 2;
  }

  /** The most any chunk gets from this term: BM25's term part grows with frequency and shrinks with length. */
  bound(idf: number, averageLength: number): number {
    return termScore(idf, this.maxFrequency, this.minLength, averageLength) * (1 + BOUND_SLACK);
  }
}

/** The chunks a query may rank share one of these: an access list, a connector and a source. */
interface ChunkGroup {
  readonly accessListId: number;
  readonly connectorId: number | null;
  readonly source: string;
}

/** A query term the team holds, with its IDF and the most a chunk can get from it. */
interface QueryTerm {
  readonly list: PostingList;
  readonly idf: number;
  readonly bound: number;
}

/** Whether a hit ranks below another: a lower score, or the same score and a higher chunk id. */
function ranksBelow(score: number, chunkId: number, otherScore: number, otherChunkId: number): boolean {
  return score < otherScore || (score === otherScore && chunkId > otherChunkId);
}

/** The best `limit` (score, chunk id) pairs offered, in a heap whose root is the worst kept. */
class TopHits {
  private readonly scores: Float64Array;
  private readonly chunkIds: Float64Array;
  private size = 0;

  constructor(private readonly limit: number) {
    this.scores = new Float64Array(limit);
    this.chunkIds = new Float64Array(limit);
  }

  offer(score: number, chunkId: number): void {
    const scores = this.scores;
    const chunkIds = this.chunkIds;
    if (this.size < this.limit) {
      let child = this.size++;
      while (child > 0) {
        const parent = (child - 1) >> 1;
        if (!ranksBelow(score, chunkId, scores[parent] as number, chunkIds[parent] as number)) break;
        scores[child] = scores[parent] as number;
        chunkIds[child] = chunkIds[parent] as number;
        child = parent;
      }
      scores[child] = score;
      chunkIds[child] = chunkId;
      return;
    }
    if (ranksBelow(score, chunkId, scores[0] as number, chunkIds[0] as number)) return;
    let parent = 0;
    for (;;) {
      let child = 2 * parent + 1;
      if (child >= this.size) break;
      const right = child + 1;
      if (
        right < this.size &&
        ranksBelow(
          scores[right] as number,
          chunkIds[right] as number,
          scores[child] as number,
          chunkIds[child] as number,
        )
      ) {
        child = right;
      }
      if (!ranksBelow(scores[child] as number, chunkIds[child] as number, score, chunkId)) break;
      scores[parent] = scores[child] as number;
      chunkIds[parent] = chunkIds[child] as number;
      parent = child;
    }
    scores[parent] = score;
    chunkIds[parent] = chunkId;
  }

  /** Best first: score descending, chunk id ascending. */
  sorted(): LexicalIndexHit[] {
    const hits: LexicalIndexHit[] = [];
    for (let index = 0; index < this.size; index++) {
      hits.push({ chunkId: this.chunkIds[index] as number, score: this.scores[index] as number });
    }
    return hits.sort((left, right) => right.score - left.score || left.chunkId - right.chunkId);
  }
}

/**
 * One team's lexical postings in memory, ranked by exact Okapi BM25: the scores of the database's
 * `runLexical` (search.ts), to the last bit but for `Math.log` against PostgreSQL's `ln`, and its
 * top k, in microseconds instead of a round trip.
 *
 * Layout: each chunk has a slot; per slot its chunk id, length, group (access list, connector and
 * source; 0 once the chunk is removed) and the ids of the terms it holds; per term a posting list
 * of slots ascending with 16-bit frequencies. Removing a chunk only marks its slot dead; once dead
 * postings outnumber live ones the index is compacted, which renumbers slots in the same order.
 *
 * Ranking (`rank`) is MaxScore done term at a time: terms are read fully, highest score bound
 * first, into per-slot accumulators, until the k-th best partial score beats the sum of the bounds
 * of the terms not read: no chunk unseen by then can enter the top k, so those (common) terms are
 * only searched for the chunks that still can, dropping chunks as they fall out of reach. The few
 * chunks left are scored again term by term in the query's order, the SQL's summation order.
 */
export class TeamLexicalIndex {
  private readonly slotOfChunk = new Map<number, number>();
  private slotCount = 0;
  private slotChunkIds = new Float64Array(0);
  private slotLengths = new Float64Array(0);
  /** 0 marks a dead slot, so one read checks both liveness and a query's filters. */
  private slotGroups = new Int32Array(0);
  /** Slot s holds the term ids `slotTermIds[slotTermStarts[s] .. slotTermStarts[s + 1])`. */
  private slotTermStarts = new Int32Array(1);
  private slotTermIds = new Int32Array(0);

  private termIds = new Map<string, number>();
  private lists: PostingList[] = [];
  /** The posting lists' arrays and overheads, kept as they change so `estimatedBytes` is O(1). */
  private listBytes = 0;

  /** Group ids start at 1: `groups[0]` stands for no group, so that a slot's 0 can mean dead. */
  private groups: ChunkGroup[] = [{ accessListId: 0, connectorId: null, source: '' }];
  private groupIds = new Map<string, number>();
  private groupsOfAccessList = new Map<number, number[]>();

  // Scratch space reused by every rank() call. Accumulators are all 0 between calls: a call
  // clears exactly the slots it touched (term scores are never 0, so 0 means untouched).
  private allowedGroups = new Uint8Array(0);
  private accumulators = new Float64Array(0);
  private touched = new Int32Array(0);
  private kthHeap = new Float64Array(0);

  private livePostings = 0;
  private deadPostings = 0;
  private work: RankWork = { postingsScored: 0, lookups: 0 };

  /** Live chunks. */
  get chunkCount(): number {
    return this.slotOfChunk.size;
  }

  /** Live postings. */
  get postingCount(): number {
    return this.livePostings;
  }

  /** Work counters of the last rank() call, for tests that show pruning by counting, not timing. */
  get lastRankWork(): RankWork {
    return this.work;
  }

  hasChunk(chunkId: number): boolean {
    return this.slotOfChunk.has(chunkId);
  }

  /** Live chunks holding the term (what BM25's df is: team-wide, NOT filtered by access). 0 if none. */
  documentFrequency(term: string): number {
    const termId = this.termIds.get(term);
    return termId === undefined ? 0 : (this.lists[termId]?.live ?? 0);
  }

  /** Sets a chunk to exactly these postings and attributes, replacing whatever it had. An empty list removes it. */
  setChunk(chunkId: number, attributes: ChunkAttributes, postings: readonly IndexedPosting[]): void {
    // Checked before anything changes, so a refused call leaves the index as it was.
    if (!Number.isSafeInteger(chunkId) || chunkId <= 0) {
      throw new RangeError(`chunk id must be a positive integer, got ${chunkId}`);
    }
    if (!Number.isFinite(attributes.length) || attributes.length < 0) {
      throw new RangeError(
        `chunk ${chunkId}: length must be finite and not negative, got ${attributes.length}`,
      );
    }
    for (const posting of postings) {
      const frequency = posting.frequency;
      if (!Number.isInteger(frequency) || frequency < 1 || frequency > MAX_FREQUENCY) {
        throw new RangeError(
          `chunk ${chunkId}, term ${posting.term}: frequency ${frequency} is not in 1..65535`,
        );
      }
    }
    if (new Set(postings.map((posting) => posting.term)).size !== postings.length) {
      throw new RangeError(`chunk ${chunkId}: a term appears twice in its postings`);
    }
    this.removeChunk(chunkId);
    if (postings.length === 0) return;

    const slot = this.slotCount++;
    this.ensureSlotCapacity(this.slotCount);
    this.slotOfChunk.set(chunkId, slot);
    this.slotChunkIds[slot] = chunkId;
    this.slotLengths[slot] = attributes.length;
    this.slotGroups[slot] = this.groupOf(attributes);
    const start = this.slotTermStarts[slot] as number;
    if (this.slotTermIds.length < start + postings.length) {
      this.slotTermIds = grownInt32(this.slotTermIds, start + postings.length);
    }
    let next = start;
    for (const posting of postings) {
      const termId = this.termIdOf(posting.term);
      this.listBytes += (this.lists[termId] as PostingList).append(
        slot,
        posting.frequency,
        attributes.length,
      );
      this.slotTermIds[next++] = termId;
    }
    this.slotTermStarts[slot + 1] = next;
    this.livePostings += postings.length;
  }

  removeChunk(chunkId: number): void {
    const slot = this.slotOfChunk.get(chunkId);
    if (slot === undefined) return;
    this.slotOfChunk.delete(chunkId);
    this.slotGroups[slot] = 0;
    const start = this.slotTermStarts[slot] as number;
    const end = this.slotTermStarts[slot + 1] as number;
    for (let index = start; index < end; index++) {
      (this.lists[this.slotTermIds[index] as number] as PostingList).live--;
    }
    this.livePostings -= end - start;
    this.deadPostings += end - start;
    if (this.deadPostings > this.livePostings && this.deadPostings >= MIN_DEAD_POSTINGS_TO_COMPACT) {
      this.compact();
    }
  }

  /**
   * Drops dead slots and postings, terms no live chunk holds and groups no live chunk is in, and
   * trims every array to its contents. Live slots keep their order, so every posting list stays
   * sorted. Runs by itself once dead postings outnumber live ones; a caller may run it after a
   * large load (to drop the arrays' growth room) or purge.
   */
  compact(): void {
    const liveSlots = this.slotOfChunk.size;
    const newSlotOf = new Int32Array(this.slotCount).fill(-1);
    const chunkIds = new Float64Array(liveSlots);
    const lengths = new Float64Array(liveSlots);
    const slotGroups = new Int32Array(liveSlots);
    const newGroupOf = new Int32Array(this.groups.length);
    const groups: ChunkGroup[] = [this.groups[0] as ChunkGroup];
    let kept = 0;
    for (let slot = 0; slot < this.slotCount; slot++) {
      const group = this.slotGroups[slot] as number;
      if (group === 0) continue;
      if (newGroupOf[group] === 0) {
        newGroupOf[group] = groups.length;
        groups.push(this.groups[group] as ChunkGroup);
      }
      newSlotOf[slot] = kept;
      chunkIds[kept] = this.slotChunkIds[slot] as number;
      lengths[kept] = this.slotLengths[slot] as number;
      slotGroups[kept] = newGroupOf[group] as number;
      kept++;
    }

    const newTermOf = new Int32Array(this.lists.length).fill(-1);
    const lists: PostingList[] = [];
    const termIds = new Map<string, number>();
    let listBytes = 0;
    for (const [termId, list] of this.lists.entries()) {
      if (list.live === 0) continue;
      const compacted = new PostingList(list.term, list.live);
      for (let index = 0; index < list.size; index++) {
        const slot = newSlotOf[list.slots[index] as number] as number;
        if (slot >= 0) compacted.append(slot, list.frequencies[index] as number, lengths[slot] as number);
      }
      newTermOf[termId] = lists.length;
      termIds.set(list.term, lists.length);
      lists.push(compacted);
      listBytes += compacted.byteLength + compacted.overheadBytes;
    }

    const slotTermStarts = new Int32Array(liveSlots + 1);
    const slotTermIds = new Int32Array(this.livePostings);
    let next = 0;
    for (let slot = 0; slot < this.slotCount; slot++) {
      const newSlot = newSlotOf[slot] as number;
      if (newSlot < 0) continue;
      const end = this.slotTermStarts[slot + 1] as number;
      for (let index = this.slotTermStarts[slot] as number; index < end; index++) {
        slotTermIds[next++] = newTermOf[this.slotTermIds[index] as number] as number;
      }
      slotTermStarts[newSlot + 1] = next;
    }

    for (const [chunkId, slot] of this.slotOfChunk) this.slotOfChunk.set(chunkId, newSlotOf[slot] as number);
    this.slotCount = liveSlots;
    this.slotChunkIds = chunkIds;
    this.slotLengths = lengths;
    this.slotGroups = slotGroups;
    this.slotTermStarts = slotTermStarts;
    this.slotTermIds = slotTermIds;
    this.lists = lists;
    this.listBytes = listBytes;
    this.termIds = termIds;
    this.groups = groups;
    this.groupIds = new Map();
    this.groupsOfAccessList = new Map();
    for (const [group, attributes] of groups.entries()) {
      if (group > 0) this.registerGroup(group, attributes);
    }
    this.accumulators = new Float64Array(0);
    this.touched = new Int32Array(0);
    this.deadPostings = 0;
  }

  /** Bytes the index holds, estimated from its typed arrays and dictionary (for a memory budget). */
  estimatedBytes(): number {
    return (
      this.listBytes +
      this.slotChunkIds.byteLength +
      this.slotLengths.byteLength +
      this.slotGroups.byteLength +
      this.slotTermStarts.byteLength +
      this.slotTermIds.byteLength +
      this.allowedGroups.byteLength +
      this.accumulators.byteLength +
      this.touched.byteLength +
      this.kthHeap.byteLength +
      this.slotOfChunk.size * MAP_ENTRY_BYTES +
      this.groups.length * GROUP_BYTES
    );
  }

  /** Best `limit` chunks, score descending, ties by chunkId ascending. */
  rank(query: LexicalIndexQuery): LexicalIndexHit[] {
    this.work = { postingsScored: 0, lookups: 0 };
    if (
      !Number.isFinite(query.teamChunks) ||
      !Number.isFinite(query.averageLength) ||
      Number.isNaN(query.limit)
    ) {
      throw new RangeError('teamChunks and averageLength must be finite numbers, limit a number');
    }
    // The SQL answers nothing for a team it counts no chunks of; no top k is longer than the index.
    const limit = Math.min(Math.floor(query.limit), this.slotOfChunk.size);
    if (limit <= 0 || query.teamChunks <= 0) return [];
    const averageLength = Math.max(query.averageLength, 1);
    const terms: QueryTerm[] = [];
    const seen = new Set<string>();
    for (const term of query.terms) {
      if (seen.has(term)) continue;
      seen.add(term);
      const termId = this.termIds.get(term);
      const list = termId === undefined ? undefined : this.lists[termId];
      if (list === undefined || list.live === 0) continue;
      const idf = inverseDocumentFrequency(list.live, query.teamChunks);
      terms.push({ list, idf, bound: list.bound(idf, averageLength) });
    }
    if (terms.length === 0 || !this.allowGroups(query)) return [];
    if (this.accumulators.length < this.slotCount) {
      this.accumulators = new Float64Array(this.slotCount * 2);
      this.touched = new Int32Array(this.slotCount * 2);
    }
    if (this.kthHeap.length < limit) this.kthHeap = new Float64Array(limit);
    return this.rankTerms(terms, averageLength, limit);
  }

  /** `rank` for the query's terms the team holds (in query order), its filters already marked in `allowedGroups`. */
  private rankTerms(terms: readonly QueryTerm[], averageLength: number, limit: number): LexicalIndexHit[] {
    const termCount = terms.length;
    // Highest bound first; a stable sort keeps query order among equal bounds.
    const order = [...terms.keys()].sort(
      (left, right) => (terms[right] as QueryTerm).bound - (terms[left] as QueryTerm).bound,
    );
    /** boundAfter[i]: the most a chunk can get from the terms order[i..]. */
    const boundAfter = new Float64Array(termCount + 1);
    for (let index = termCount - 1; index >= 0; index--) {
      boundAfter[index] =
        (boundAfter[index + 1] as number) + (terms[order[index] as number] as QueryTerm).bound;
    }
    const accumulators = this.accumulators;
    const touched = this.touched;
    const slotGroups = this.slotGroups;
    const slotLengths = this.slotLengths;
    const allowed = this.allowedGroups;
    let touchedCount = 0;
    let postingsScored = 0;
    let lookups = 0;
    /** A floor of the final k-th score: k chunks have at least this. */
    let threshold = 0;

    // 1. Read terms fully, best bound first, until no chunk unseen can reach the threshold.
    let scanned = 0;
    // How many chunks the last term lifted above what the terms after it can add: the k-th best
    // partial (a pass over every touched chunk) is only worth computing once k have been.
    let lifted = 0;
    let unscannedPostings = 0;
    for (const term of terms) unscannedPostings += term.list.size;
    for (; scanned < termCount; scanned++) {
      const unscannedBound = boundAfter[scanned] as number;
      if (scanned > 0 && lifted >= limit && unscannedPostings > touchedCount) {
        threshold = kthLargest(accumulators, touched, touchedCount, limit, this.kthHeap) * (1 - BOUND_SLACK);
        if (unscannedBound < threshold) break;
      }
      const { list, idf } = terms[order[scanned] as number] as QueryTerm;
      const slots = list.slots;
      const frequencies = list.frequencies;
      const level = boundAfter[scanned + 1] as number;
      lifted = 0;
      for (let index = 0; index < list.size; index++) {
        const slot = slots[index] as number;
        if (allowed[slotGroups[slot] as number] !== 1) continue;
        const score = termScore(
          idf,
          frequencies[index] as number,
          slotLengths[slot] as number,
          averageLength,
        );
        postingsScored++;
        const partial = accumulators[slot] as number;
        if (partial === 0) touched[touchedCount++] = slot;
        const sum = partial + score;
        accumulators[slot] = sum;
        if (sum > level) lifted++;
      }
      unscannedPostings -= list.size;
    }

    // 2. Search the remaining terms' lists only for the chunks that can still reach the threshold.
    let candidateCount = touchedCount;
    let sortedBySlot = scanned <= 1;
    if (scanned < termCount) {
      candidateCount = keepReachable(
        accumulators,
        touched,
        touchedCount,
        boundAfter[scanned] as number,
        threshold,
      );
      if (!sortedBySlot) touched.subarray(0, candidateCount).sort();
      sortedBySlot = true;
      for (let probed = scanned; probed < termCount; probed++) {
        const { list, idf } = terms[order[probed] as number] as QueryTerm;
        if (probed > scanned) {
          candidateCount = keepReachable(
            accumulators,
            touched,
            candidateCount,
            boundAfter[probed] as number,
            threshold,
          );
        }
        const slots = list.slots;
        let cursor = 0;
        for (let index = 0; index < candidateCount; index++) {
          const slot = touched[index] as number;
          cursor = gallopTo(slots, cursor, list.size, slot);
          lookups++;
          if (cursor < list.size && slots[cursor] === slot) {
            accumulators[slot] =
              (accumulators[slot] as number) +
              termScore(idf, list.frequencies[cursor] as number, slotLengths[slot] as number, averageLength);
            postingsScored++;
          }
        }
        if (candidateCount >= limit) {
          const floor =
            kthLargest(accumulators, touched, candidateCount, limit, this.kthHeap) * (1 - BOUND_SLACK);
          if (floor > threshold) threshold = floor;
        }
      }
    }

    // 3. The top k by exact scores, summed in query order.
    const top = new TopHits(limit);
    if (order.every((term, index) => term === index)) {
      // Every partial was summed in query order: it is the exact score.
      for (let index = 0; index < candidateCount; index++) {
        const slot = touched[index] as number;
        top.offer(accumulators[slot] as number, this.slotChunkIds[slot] as number);
        accumulators[slot] = 0;
      }
    } else {
      const survivors = collectSurvivors(
        accumulators,
        touched,
        candidateCount,
        limit,
        threshold,
        this.kthHeap,
      );
      if (!sortedBySlot) survivors.sort();
      const scores = new Float64Array(survivors.length);
      for (const { list, idf } of terms) {
        let cursor = 0;
        for (let index = 0; index < survivors.length; index++) {
          const slot = survivors[index] as number;
          cursor = gallopTo(list.slots, cursor, list.size, slot);
          lookups++;
          if (cursor < list.size && list.slots[cursor] === slot) {
            // Adding nothing for a term the chunk lacks, as the SQL's sum skips it.
            scores[index] =
              (scores[index] as number) +
              termScore(idf, list.frequencies[cursor] as number, slotLengths[slot] as number, averageLength);
            postingsScored++;
          }
        }
      }
      for (let index = 0; index < survivors.length; index++) {
        top.offer(scores[index] as number, this.slotChunkIds[survivors[index] as number] as number);
      }
    }
    this.work = { postingsScored, lookups };
    return top.sorted();
  }

  /** Marks the groups the query may rank in `allowedGroups`; false when there are none. */
  private allowGroups(query: LexicalIndexQuery): boolean {
    if (this.allowedGroups.length < this.groups.length) {
      this.allowedGroups = new Uint8Array(this.groups.length * 2);
    } else {
      this.allowedGroups.fill(0);
    }
    const connectors =
      query.connectorIds !== undefined && query.connectorIds.length > 0
        ? new Set(query.connectorIds)
        : undefined;
    const sources =
      query.sources !== undefined && query.sources.length > 0 ? new Set(query.sources) : undefined;
    let any = false;
    for (const accessListId of query.accessListIds) {
      for (const group of this.groupsOfAccessList.get(accessListId) ?? []) {
        const { connectorId, source } = this.groups[group] as ChunkGroup;
        // As in SQL, a chunk without a connector matches no connector filter.
        if (connectors !== undefined && (connectorId === null || !connectors.has(connectorId))) continue;
        if (sources !== undefined && !sources.has(source)) continue;
        this.allowedGroups[group] = 1;
        any = true;
      }
    }
    return any;
  }

  private groupOf(attributes: ChunkAttributes): number {
    const known = this.groupIds.get(groupKey(attributes));
    if (known !== undefined) return known;
    const group = this.groups.length;
    const stored: ChunkGroup = {
      accessListId: attributes.accessListId,
      connectorId: attributes.connectorId,
      source: attributes.source,
    };
    this.groups.push(stored);
    this.registerGroup(group, stored);
    return group;
  }

  private registerGroup(group: number, attributes: ChunkGroup): void {
    this.groupIds.set(groupKey(attributes), group);
    const ofList = this.groupsOfAccessList.get(attributes.accessListId);
    if (ofList === undefined) this.groupsOfAccessList.set(attributes.accessListId, [group]);
    else ofList.push(group);
  }

  private termIdOf(term: string): number {
    const known = this.termIds.get(term);
    if (known !== undefined) return known;
    const termId = this.lists.length;
    const list = new PostingList(term);
    this.termIds.set(term, termId);
    this.lists.push(list);
    this.listBytes += list.byteLength + list.overheadBytes;
    return termId;
  }

  private ensureSlotCapacity(slots: number): void {
    if (this.slotChunkIds.length < slots) {
      this.slotChunkIds = grownFloat64(this.slotChunkIds, slots);
      this.slotLengths = grownFloat64(this.slotLengths, slots);
      this.slotGroups = grownInt32(this.slotGroups, slots);
    }
    // One more entry: a slot's terms end where the next slot's begin.
    if (this.slotTermStarts.length < slots + 1) {
      this.slotTermStarts = grownInt32(this.slotTermStarts, slots + 1);
    }
  }
}

function groupKey(group: ChunkGroup): string {
  return `${group.accessListId}\u0000${group.connectorId ?? ''}\u0000${group.source}`;
}

/**
 * Keeps (in place, in order) the first `count` candidates whose partial score plus `unreadBound`
 * can reach `threshold`, clears the others' accumulators, and returns how many were kept.
 */
function keepReachable(
  accumulators: Float64Array,
  candidates: Int32Array,
  count: number,
  unreadBound: number,
  threshold: number,
): number {
  let kept = 0;
  for (let index = 0; index < count; index++) {
    const slot = candidates[index] as number;
    if (((accumulators[slot] as number) + unreadBound) * (1 + BOUND_SLACK) >= threshold)
      candidates[kept++] = slot;
    else accumulators[slot] = 0;
  }
  return kept;
}

/** The k-th largest accumulator of the first `count` slots (k <= count), by a min-heap of the k largest. */
function kthLargest(
  accumulators: Float64Array,
  slots: Int32Array,
  count: number,
  k: number,
  heap: Float64Array,
) {
  let size = 0;
  for (let index = 0; index < count; index++) {
    const value = accumulators[slots[index] as number] as number;
    if (size < k) pushToHeap(heap, size++, value);
    else if (value > (heap[0] as number)) replaceHeapRoot(heap, k, value);
  }
  return heap[0] as number;
}

/**
 * The candidates whose partial score may still reach the k-th best, in one pass that also clears
 * every candidate's accumulator: a heap keeps the k best partials, and a chunk is kept when it is
 * within slack of the floor so far. The floor only rises, so filtering the kept ones by the last
 * floor leaves every chunk that may tie or beat the k-th.
 */
function collectSurvivors(
  accumulators: Float64Array,
  candidates: Int32Array,
  count: number,
  k: number,
  threshold: number,
  heap: Float64Array,
): Int32Array {
  const keptSlots: number[] = [];
  const keptPartials: number[] = [];
  let size = 0;
  let floor = threshold;
  for (let index = 0; index < count; index++) {
    const slot = candidates[index] as number;
    const partial = accumulators[slot] as number;
    accumulators[slot] = 0;
    if (partial * (1 + BOUND_SLACK) < floor) continue;
    if (size < k) pushToHeap(heap, size++, partial);
    else if (partial > (heap[0] as number)) replaceHeapRoot(heap, k, partial);
    if (size === k) floor = Math.max(floor, (heap[0] as number) * (1 - BOUND_SLACK));
    keptSlots.push(slot);
    keptPartials.push(partial);
  }
  const survivors: number[] = [];
  for (const [index, slot] of keptSlots.entries()) {
    if ((keptPartials[index] as number) * (1 + BOUND_SLACK) >= floor) survivors.push(slot);
  }
  return Int32Array.from(survivors);
}

/** Adds `value` to a min-heap holding `size` values. */
function pushToHeap(heap: Float64Array, size: number, value: number): void {
  let child = size;
  while (child > 0) {
    const parent = (child - 1) >> 1;
    if ((heap[parent] as number) <= value) break;
    heap[child] = heap[parent] as number;
    child = parent;
  }
  heap[child] = value;
}

/** Replaces a full min-heap's root by `value` and restores the heap. */
function replaceHeapRoot(heap: Float64Array, size: number, value: number): void {
  let parent = 0;
  for (;;) {
    let child = 2 * parent + 1;
    if (child >= size) break;
    if (child + 1 < size && (heap[child + 1] as number) < (heap[child] as number)) child++;
    if ((heap[child] as number) >= value) break;
    heap[parent] = heap[child] as number;
    parent = child;
  }
  heap[parent] = value;
}

/** The first index in `from..size` whose slot is at least `target` (or `size`): galloping, then binary search. */
function gallopTo(slots: Int32Array, from: number, size: number, target: number): number {
  if (from >= size || (slots[from] as number) >= target) return from;
  // slots[low] < target throughout; slots[high] >= target once high < size.
  let low = from;
  let step = 1;
  let high = from + 1;
  while (high < size && (slots[high] as number) < target) {
    low = high;
    step *= 2;
    high = from + step;
  }
  if (high > size) high = size;
  while (low + 1 < high) {
    const middle = (low + high) >>> 1;
    if ((slots[middle] as number) < target) low = middle;
    else high = middle;
  }
  return high;
}

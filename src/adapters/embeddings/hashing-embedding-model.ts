import type { EmbeddingModel, EmbeddingPurpose } from './embedding-model.js';

export interface HashingEmbeddingModelOptions {
  /** Buckets, i.e. the vector length. Default 256. */
  readonly dimensions?: number;
  /** Most texts one `embed` call takes. Default 256. */
  readonly maxBatchSize?: number;
}

const WORD_WEIGHT = 1;
// Trigrams make inflected forms (index, indexes, indexing) share some weight without a stemmer;
// words still dominate so that shared words decide similarity.
const TRIGRAM_WEIGHT = 0.35;

/**
 * A deterministic, dependency-free `EmbeddingModel` for tests and offline demos. It is NOT a
 * semantic model: it hashes lowercased words and their character trigrams into `dimensions`
 * signed buckets (the "hashing trick") and L2-normalises, so texts that share words have a higher
 * cosine similarity and nothing else is understood (no synonyms, no word order). The same text
 * always gives the same vector, on every machine and in every process.
 */
export class HashingEmbeddingModel implements EmbeddingModel {
  readonly id: string;
  readonly dimensions: number;
  readonly maxBatchSize: number;

  constructor(options: HashingEmbeddingModelOptions = {}) {
    const dimensions = options.dimensions ?? 256;
    const maxBatchSize = options.maxBatchSize ?? 256;
    if (!Number.isInteger(dimensions) || dimensions < 1) {
      throw new RangeError(`dimensions must be a positive integer, got ${dimensions}`);
    }
    if (!Number.isInteger(maxBatchSize) || maxBatchSize < 1) {
      throw new RangeError(`maxBatchSize must be a positive integer, got ${maxBatchSize}`);
    }
    this.dimensions = dimensions;
    this.maxBatchSize = maxBatchSize;
    this.id = `hashing:${dimensions}`;
  }

  /** Purpose is ignored: queries and documents share one hashing. */
  async embed(
    texts: readonly string[],
    options: { readonly purpose: EmbeddingPurpose; readonly signal?: AbortSignal },
  ): Promise<number[][]> {
    options.signal?.throwIfAborted();
    return texts.map((text) => this.vectorFor(text));
  }

  /** The vector of one text, synchronously (the fake OpenAI server uses it). */
  vectorFor(text: string): number[] {
    const vector = new Array<number>(this.dimensions).fill(0);
    const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
    for (const word of words) {
      this.add(vector, `w:${word}`, WORD_WEIGHT);
      const padded = `^${word}$`;
      for (let start = 0; start + 3 <= padded.length; start += 1) {
        this.add(vector, `t:${padded.slice(start, start + 3)}`, TRIGRAM_WEIGHT);
      }
    }
    let norm = Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
    if (norm === 0) {
      // No words (or every feature cancelled out): a fixed unit vector rather than zeros, whose
      // cosine distance is undefined (pgvector answers NaN).
      this.add(vector, 'empty', 1);
      norm = 1;
    }
    return vector.map((value) => value / norm);
  }

  private add(vector: number[], feature: string, weight: number): void {
    const hash = hash32(feature);
    const bucket = hash % this.dimensions;
    // The sign comes from the top bit, independent of the bucket's low bits: collisions then
    // cancel out on average instead of piling up.
    const sign = hash >>> 31 === 1 ? -1 : 1;
    vector[bucket] = (vector[bucket] ?? 0) + sign * weight;
  }
}

/** FNV-1a over UTF-16 code units, then murmur3's finaliser to spread the bits. Unsigned 32-bit. */
function hash32(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

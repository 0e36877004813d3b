// A plain in-memory BM25 for the chunking benchmark: enough to compare chunkings with each
// other, not a search engine. Lucene's IDF, k1 0.9 and b 0.4 (Anserini's defaults for BEIR).

/** Lower-cased runs of letters and digits, each through the S-stemmer. */
export function tokenize(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).map(sStem);
}

/**
 * Harman's S-stemmer (1991): plurals only. `ies` → `y`, `es` → `e`, `s` → nothing, with the
 * usual exceptions (`aies`, `eies`, `aes`, `ees`, `oes`, `us`, `ss`) and short words left alone.
 */
export function sStem(word: string): string {
  if (word.length <= 3 || !word.endsWith('s')) return word;
  if (word.endsWith('ies') && !word.endsWith('eies') && !word.endsWith('aies'))
    return `${word.slice(0, -3)}y`;
  if (word.endsWith('es') && !word.endsWith('aes') && !word.endsWith('ees') && !word.endsWith('oes')) {
    return word.slice(0, -1);
  }
  if (word.endsWith('us') || word.endsWith('ss')) return word;
  return word.slice(0, -1);
}

export interface Bm25Parameters {
  readonly k1: number;
  readonly b: number;
}

export const ANSERINI_BM25: Bm25Parameters = { k1: 0.9, b: 0.4 };

/** An inverted index over passages, each passage numbered by its position in the input. */
export class Bm25Index {
  readonly #postings = new Map<string, { passages: number[]; frequencies: number[] }>();
  readonly #lengths: Float64Array;
  readonly #averageLength: number;
  readonly #parameters: Bm25Parameters;

  constructor(passages: readonly string[], parameters: Bm25Parameters = ANSERINI_BM25) {
    this.#parameters = parameters;
    this.#lengths = new Float64Array(passages.length);
    let total = 0;
    passages.forEach((passage, index) => {
      const counts = new Map<string, number>();
      const tokens = tokenize(passage);
      for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
      for (const [term, frequency] of counts) {
        let posting = this.#postings.get(term);
        if (posting === undefined) {
          posting = { passages: [], frequencies: [] };
          this.#postings.set(term, posting);
        }
        posting.passages.push(index);
        posting.frequencies.push(frequency);
      }
      this.#lengths[index] = tokens.length;
      total += tokens.length;
    });
    this.#averageLength = passages.length === 0 ? 0 : total / passages.length;
  }

  /** A score for every passage (0 when no query term occurs in it). */
  score(query: string): Float64Array {
    const scores = new Float64Array(this.#lengths.length);
    const { k1, b } = this.#parameters;
    const count = this.#lengths.length;
    for (const term of new Set(tokenize(query))) {
      const posting = this.#postings.get(term);
      if (posting === undefined) continue;
      const documentFrequency = posting.passages.length;
      const idf = Math.log(1 + (count - documentFrequency + 0.5) / (documentFrequency + 0.5));
      for (let index = 0; index < documentFrequency; index += 1) {
        const passage = posting.passages[index] ?? 0;
        const frequency = posting.frequencies[index] ?? 0;
        const norm = k1 * (1 - b + (b * (this.#lengths[passage] ?? 0)) / this.#averageLength);
        scores[passage] = (scores[passage] ?? 0) + (idf * (frequency * (k1 + 1))) / (frequency + norm);
      }
    }
    return scores;
  }
}

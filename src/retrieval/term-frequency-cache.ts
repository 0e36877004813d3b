/** A remembered document frequency, until `expiresAt`. */
interface Entry {
  readonly frequency: number;
  readonly expiresAt: number;
}

/** Longest word whose prefixes are looked up (longer words are rarely stems' sources). */
const MAX_WORD_LENGTH = 40;

/**
 * Document frequencies of a team's common terms, kept for a minute per process. Counting how
 * many chunks hold a term that appears in thousands of them was most of a big team's lexical
 * search (bench/search); such a term's frequency barely moves within a minute, and BM25's IDF
 * of a common term is small and flat, so a slightly old count moves scores by far less than
 * any ranking decision. Rare terms are counted by every query for free (their postings are
 * all read anyway) and are not kept here.
 *
 * Terms are PostgreSQL lexemes, which only the database computes: `candidates` offers the
 * remembered lexemes that the query's words could stem to (English stems are prefixes of their
 * words, `y` becoming `i`), and the query uses one only where a lexeme of its own matches it
 * exactly. A wrong guess costs a count, never a wrong score.
 */
export class TermFrequencyCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly ttlMs = 60_000,
    private readonly maxTerms = 100_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Remembered frequencies of the lexemes the words of `text` may become, in this team. */
  candidates(teamId: number, text: string): Map<string, number> {
    const found = new Map<string, number>();
    const now = this.now();
    for (const word of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
      const forms = word.endsWith('y') ? [word, `${word.slice(0, -1)}i`] : [word];
      for (const form of forms) {
        for (let length = Math.min(form.length, MAX_WORD_LENGTH); length >= 2; length--) {
          const term = form.slice(0, length);
          if (found.has(term)) continue;
          const entry = this.entries.get(key(teamId, term));
          if (entry !== undefined && entry.expiresAt > now) found.set(term, entry.frequency);
        }
      }
    }
    return found;
  }

  /** The remembered frequencies of exactly these lexemes, in this team. */
  known(teamId: number, terms: readonly string[]): Map<string, number> {
    const found = new Map<string, number>();
    const now = this.now();
    for (const term of terms) {
      const entry = this.entries.get(key(teamId, term));
      if (entry !== undefined && entry.expiresAt > now) found.set(term, entry.frequency);
    }
    return found;
  }

  remember(teamId: number, frequencies: Iterable<readonly [string, number]>): void {
    const expiresAt = this.now() + this.ttlMs;
    for (const [term, frequency] of frequencies) {
      if (this.entries.size >= this.maxTerms) this.entries.clear();
      this.entries.set(key(teamId, term), { frequency, expiresAt });
    }
  }
}

function key(teamId: number, term: string): string {
  return `${teamId}\u0000${term}`;
}

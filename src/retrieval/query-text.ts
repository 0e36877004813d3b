import { withoutContractions } from '../contractions.js';
import { withIdentifierWords } from '../identifier-words.js';

/** A search query split into its free text and the phrases it quotes. */
export interface ParsedQuery {
  /**
   * The whole query without quote marks, and the words of its identifiers (as chunks are indexed
   * with theirs): every word counts for ranking.
   */
  readonly text: string;
  /** Quoted phrases ("…"): a result must contain each, words in that order. */
  readonly phrases: readonly string[];
}

const QUOTED = /["“”]([^"“”]+)["“”]/g;

/**
 * Finds quoted phrases. Straight and curly quotes both count, since people paste queries from
 * documents and chat clients that curl them; an unpaired quote is just a character.
 */
export function parseQuery(query: string): ParsedQuery {
  const phrases = [...query.matchAll(QUOTED)]
    .map((match) => (match[1] ?? '').trim())
    .filter((phrase) => phrase !== '');
  const text = withoutContractions(query.replace(QUOTED, ' $1 ')).replace(/\s+/g, ' ').trim();
  return { text: withIdentifierWords(text), phrases };
}

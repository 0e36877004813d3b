import type { EnglishStemmerVariant } from './english-stemmer.js';
import { PROBE_WORDS, plainWordLexemes, STEMMER_VARIANTS } from './english-words.js';

/**
 * The lexemes PostgreSQL's English analysis made of the words of queries searched before, word by
 * word, so that a query whose every word was seen needs no statement to be analysed. A word's
 * lexemes do not depend on its neighbours when they are apart: the parser never reads a token
 * across ASCII white space, except in a markup tag (`<a href="x y">`), so a text holding `<` is
 * never answered from here. What is kept was checked once: a text's words are learnt only when
 * their lexemes together are the text's (`learn`). Analysis depends on nothing written, so the
 * words stay known whatever changes; the oldest are forgotten past `maxWords`.
 *
 * A word not seen before that the parser reads plainly (`plainWordLexemes`: ASCII letters and
 * digits, hyphens between them, separators around them) is analysed here, by the stemmer variant
 * whose analysis of `PROBE_WORDS` was the database's
 * (`adoptStemmer`); until then, and for good once a word the database analysed is analysed
 * otherwise here (`learn`), only the database analyses new words.
 */
export class QueryAnalyses {
  private readonly lexemesByWord = new Map<string, readonly string[]>();
  /** Plain words the stemmer analysed, so that a word searched again is not stemmed again. */
  private readonly stemmedByWord = new Map<string, readonly string[] | undefined>();
  /** Undefined until the probe words were analysed; null once the stemmer was found to differ. */
  private stemmer: EnglishStemmerVariant | null | undefined;

  constructor(
    private readonly maxWords: number,
    /** The analysis of a plain word by a stemmer variant (tests count its calls). */
    private readonly analyseWord: typeof plainWordLexemes = plainWordLexemes,
  ) {}

  /** Whether the probe words still wait for the database's analysis. */
  get awaitsProbe(): boolean {
    return this.stemmer === undefined;
  }

  /** Whether new plain words are analysed here (a variant matched the database and none differed since). */
  get stems(): boolean {
    return this.stemmer !== undefined && this.stemmer !== null;
  }

  /**
   * Takes the stemmer variant whose analysis of `PROBE_WORDS` is `probeLexemes` (the database's,
   * word by word); with none, new words are left to the database.
   */
  adoptStemmer(probeLexemes: readonly (readonly string[])[]): void {
    const agrees = (variant: EnglishStemmerVariant) =>
      PROBE_WORDS.length === probeLexemes.length &&
      PROBE_WORDS.every((word, index) => sameMembers(this.analyseWord(word, variant), probeLexemes[index]));
    this.stemmer = STEMMER_VARIANTS.find(agrees) ?? null;
    this.stemmedByWord.clear();
  }

  /** The text's words as the database is asked to analyse them; undefined when they may not be read apart. */
  wordsOf(text: string): string[] | undefined {
    if (text.includes('<')) return undefined;
    return [...new Set(text.split(/[ \t\n\r\f\v]+/).filter((word) => word !== ''))];
  }

  /** The text's distinct lexemes, sorted, when each of its words is known; else undefined. */
  lexemesOf(text: string): string[] | undefined {
    const words = this.wordsOf(text);
    if (words === undefined) return undefined;
    const lexemes = new Set<string>();
    for (const word of words) {
      const known = this.lexemesByWord.get(word) ?? this.stemmed(word);
      if (known === undefined) return undefined;
      for (const lexeme of known) lexemes.add(lexeme);
    }
    return [...lexemes].sort(byCodeUnit);
  }

  /** The stemmer's analysis of a plain word (undefined: not plain, or no stemmer), kept once made. */
  private stemmed(word: string): readonly string[] | undefined {
    if (!this.stemmer) return undefined;
    if (this.stemmedByWord.has(word)) return this.stemmedByWord.get(word);
    const lexemes = this.analyseWord(word, this.stemmer);
    setWithin(this.stemmedByWord, word, lexemes, this.maxWords);
    return lexemes;
  }

  /**
   * Keeps each word's lexemes (`wordLexemes[i]` for `words[i]`, as `wordsOf` gave them) when
   * together they are the whole text's `lexemes`, as the database analysed it in the same statement.
   * Answers true when one of them is a plain word the stemmer analysed otherwise: from then on only
   * the database analyses new words.
   */
  learn(
    words: readonly string[],
    wordLexemes: readonly (readonly string[])[],
    lexemes: readonly string[],
  ): boolean {
    if (words.length !== wordLexemes.length) return false;
    const union = new Set(wordLexemes.flat());
    if (union.size !== new Set(lexemes).size || lexemes.some((lexeme) => !union.has(lexeme))) return false;
    let refuted = false;
    words.forEach((word, index) => {
      const learnt = wordLexemes[index] ?? [];
      const stemmed = this.stemmed(word);
      if (stemmed !== undefined && !sameMembers(stemmed, learnt)) refuted = true;
      setWithin(this.lexemesByWord, word, learnt, this.maxWords);
    });
    if (refuted) {
      this.stemmer = null;
      this.stemmedByWord.clear();
    }
    return refuted;
  }
}

/** Sets `key` as the newest entry, forgetting the oldest (the first in a Map's order) past `max`. */
function setWithin<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  for (const oldest of map.keys()) {
    if (map.size <= max) return;
    map.delete(oldest);
  }
}

/** The same members, in any order (lexemes, list ids); undefined (not known) is never the same. */
export function sameMembers<T>(ours: readonly T[] | undefined, theirs: readonly T[] | undefined): boolean {
  if (ours === undefined || theirs === undefined) return false;
  const members = new Set(theirs);
  return members.size === new Set(ours).size && ours.every((member) => members.has(member));
}

/**
 * One order for a query's lexemes, whoever analysed them (the database's `ORDER BY` follows its
 * collation): the ranking adds their scores in it.
 */
export function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

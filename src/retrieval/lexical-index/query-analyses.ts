/**
 * The lexemes PostgreSQL's English analysis made of the words of queries searched before, word by
 * word, so that a query whose every word was seen needs no statement to be analysed. A word's
 * lexemes do not depend on its neighbours when they are apart: the parser never reads a token
 * across ASCII white space, except in a markup tag (`<a href="x y">`), so a text holding `<` is
 * never answered from here. What is kept was checked once: a text's words are learnt only when
 * their lexemes together are the text's (`learn`). Analysis depends on nothing written, so the
 * words stay known whatever changes; the oldest are forgotten past `maxWords`.
 */
export class QueryAnalyses {
  private readonly lexemesByWord = new Map<string, readonly string[]>();

  constructor(private readonly maxWords: number) {}

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
      const known = this.lexemesByWord.get(word);
      if (known === undefined) return undefined;
      for (const lexeme of known) lexemes.add(lexeme);
    }
    return [...lexemes].sort(byCodeUnit);
  }

  /**
   * Keeps each word's lexemes (`wordLexemes[i]` for `words[i]`, as `wordsOf` gave them) when
   * together they are the whole text's `lexemes`, as the database analysed it in the same statement.
   */
  learn(
    words: readonly string[],
    wordLexemes: readonly (readonly string[])[],
    lexemes: readonly string[],
  ): void {
    if (words.length !== wordLexemes.length) return;
    const union = new Set(wordLexemes.flat());
    if (union.size !== new Set(lexemes).size || lexemes.some((lexeme) => !union.has(lexeme))) return;
    words.forEach((word, index) => {
      this.lexemesByWord.delete(word);
      this.lexemesByWord.set(word, wordLexemes[index] ?? []);
    });
    for (const oldest of this.lexemesByWord.keys()) {
      if (this.lexemesByWord.size <= this.maxWords) break;
      this.lexemesByWord.delete(oldest);
    }
  }
}

/**
 * One order for a query's lexemes, whoever analysed them (the database's `ORDER BY` follows its
 * collation): the ranking adds their scores in it.
 */
export function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { databaseForTheseTests } from '../../../test/helpers/test-database.js';
import { analyzeTexts } from '../../db/repositories/search.js';
import { englishStem } from './english-stemmer.js';
import { PROBE_WORDS, plainWordLexemes, STEMMER_VARIANTS } from './english-words.js';
import { QueryAnalyses } from './query-analyses.js';

const testDatabase = databaseForTheseTests();

/**
 * Words of package documentation and biomedical abstracts (docs-qa and SciFact), and tokens of them
 * with digits and hyphens: 11,411.
 */
const WORDS = readFileSync(new URL('../../../test/fixtures/english-words.txt', import.meta.url), 'utf8')
  .split('\n')
  .filter((word) => word !== '');

/** The database's analysis of each text on its own, lexemes sorted. */
async function databaseLexemes(texts: readonly string[]): Promise<string[][]> {
  return (await analyzeTexts(testDatabase().sql, texts)).map((lexemes) => [...lexemes.keys()].sort());
}

/** The stemmer variant the test database's analysis of the probe words picks. */
async function adoptedAnalyses(): Promise<QueryAnalyses> {
  const analyses = new QueryAnalyses(100_000);
  analyses.adoptStemmer(await databaseLexemes(PROBE_WORDS));
  return analyses;
}

describe("PostgreSQL's English analysis of plain words, here", () => {
  it('analyses every plain word of real documents as the database does, with the variant the probe words pick', async () => {
    const analyses = await adoptedAnalyses();
    expect(analyses.stems).toBe(true);
    const theirs = await databaseLexemes(WORDS);
    const plain = WORDS.filter((word) => analyses.lexemesOf(word) !== undefined);
    const differing = WORDS.filter((word, index) => {
      const mine = analyses.lexemesOf(word);
      return mine !== undefined && JSON.stringify(mine) !== JSON.stringify(theirs[index]);
    });
    expect(differing).toEqual([]);
    // Every word of letters alone, and most tokens with digits and hyphens, are read here.
    expect(plain).toEqual(expect.arrayContaining(WORDS.filter((word) => /^[a-z]+$/.test(word))));
    expect(plain.length).toBeGreaterThan(WORDS.length * 0.85);
  });

  it('reads a word with separators around it as the database does, and leaves paths, hosts and runs of dots to it', async () => {
    const analyses = await adoptedAnalyses();
    const separators = [...`!"#$%'()*+,-:;=>?@[\\]^\`{|}`];
    const plain = ['Cells', 'added', 'THE', 'regulation', 'x', 'UBC13', 'fast-twitch', ''].flatMap((word) =>
      separators.flatMap((before) => [
        `${before}${word}`,
        `${word}${before}`,
        `${before}${word}${before}`,
        ...separators.map((after) => `${before}${word}${after}.`),
      ]),
    );
    const theirs = await databaseLexemes(plain);
    plain.forEach((word, index) => {
      expect(analyses.lexemesOf(word), word).toEqual(theirs[index]);
    });
    // Each of these the parser reads otherwise than as the word between separators.
    const notPlain = [
      '/cancer',
      'cancer..',
      './cells',
      'cells._',
      '~cells',
      'cells/',
      'e.g.',
      'covid-19',
      '9-month',
      '(+12',
      '-0.5',
      "don't",
      'a@b',
      '&amp;',
      'naïve',
    ];
    const read = await databaseLexemes(notPlain);
    notPlain.forEach((word, index) => {
      expect(plainWordLexemes(word, STEMMER_VARIANTS[0] ?? { keepsDoubleAfterLoneVowel: false }), word).toBe(
        undefined,
      );
      // Known once the database analysed it, as before.
      expect(analyses.lexemesOf(word)).toBeUndefined();
      analyses.learn([word], [read[index] ?? []], read[index] ?? []);
      expect(analyses.lexemesOf(word)).toEqual(read[index]);
    });
  });
});

describe('the stemmer variant', () => {
  const probeAs = (keepsDoubleAfterLoneVowel: boolean) =>
    PROBE_WORDS.map((word) => plainWordLexemes(word, { keepsDoubleAfterLoneVowel }) ?? []);

  it('is the one whose analysis of the probe words is the database’s: "added" tells PostgreSQL 15 from 18', () => {
    for (const variant of STEMMER_VARIANTS) {
      expect(PROBE_WORDS.filter((word) => plainWordLexemes(word, variant) === undefined)).toEqual([]);
    }
    expect(englishStem('added', { keepsDoubleAfterLoneVowel: false })).toBe('ad');
    expect(englishStem('added', { keepsDoubleAfterLoneVowel: true })).toBe('add');
    for (const keeps of [false, true]) {
      const analyses = new QueryAnalyses(100);
      expect(analyses.awaitsProbe).toBe(true);
      expect(analyses.lexemesOf('added')).toBeUndefined();
      analyses.adoptStemmer(probeAs(keeps));
      expect(analyses.stems).toBe(true);
      expect(analyses.lexemesOf('Added cells')).toEqual(keeps ? ['add', 'cell'] : ['ad', 'cell']);
    }
  });

  it('is none when the database analyses a probe word otherwise, or once it analyses a word otherwise', () => {
    const otherwise = probeAs(false).map((lexemes, index) =>
      PROBE_WORDS[index] === 'hoping' ? ['hoping'] : lexemes,
    );
    const refused = new QueryAnalyses(100);
    refused.adoptStemmer(otherwise);
    expect(refused.stems).toBe(false);
    expect(refused.awaitsProbe).toBe(false);
    expect(refused.lexemesOf('cells')).toBeUndefined();

    const refuted = new QueryAnalyses(100);
    refuted.adoptStemmer(probeAs(true));
    expect(refuted.lexemesOf('generously')).toEqual(['generous']);
    expect(refuted.lexemesOf('tumours')).toEqual(['tumour']);
    // The database says otherwise of one word: that word is as it says, and every word it did not
    // analyse goes to it, stemmed here before or not.
    expect(refuted.learn(['cells', 'generously'], [['cell'], ['gener']], ['cell', 'gener'])).toBe(true);
    expect(refuted.stems).toBe(false);
    expect(refuted.lexemesOf('generously cells')).toEqual(['cell', 'gener']);
    expect(refuted.lexemesOf('tumours')).toBeUndefined();
  });
});

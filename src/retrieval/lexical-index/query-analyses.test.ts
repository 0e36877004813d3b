import { describe, expect, it } from 'vitest';
import { PROBE_WORDS, plainWordLexemes, STEMMER_VARIANTS } from './english-words.js';
import { QueryAnalyses } from './query-analyses.js';

describe('QueryAnalyses', () => {
  it('answers a text whose every word was learnt, whatever their order and spacing', () => {
    const analyses = new QueryAnalyses(100);
    const words = analyses.wordsOf('Running dogs bark') ?? [];
    expect(words).toEqual(['Running', 'dogs', 'bark']);
    analyses.learn(words, [['run'], ['dog'], ['bark']], ['bark', 'dog', 'run']);
    expect(analyses.lexemesOf('bark\tRunning  dogs\n')).toEqual(['bark', 'dog', 'run']);
    expect(analyses.lexemesOf('dogs')).toEqual(['dog']);
    // A word never analysed needs the database.
    expect(analyses.lexemesOf('dogs sleep')).toBeUndefined();
  });

  it('keeps a stop word as a word without lexemes', () => {
    const analyses = new QueryAnalyses(100);
    analyses.learn(['the', 'cats'], [[], ['cat']], ['cat']);
    expect(analyses.lexemesOf('the the cats')).toEqual(['cat']);
    expect(analyses.lexemesOf('the')).toEqual([]);
  });

  it('learns nothing from a text whose words apart are not the text together', () => {
    const analyses = new QueryAnalyses(100);
    analyses.learn(['a-b', 'c'], [['a'], ['c']], ['a', 'a-b', 'b', 'c']);
    expect(analyses.lexemesOf('a-b c')).toBeUndefined();
    expect(analyses.lexemesOf('c')).toBeUndefined();
  });

  it('never reads apart a text with markup, whose tags may hold white space', () => {
    const analyses = new QueryAnalyses(100);
    expect(analyses.wordsOf('<a href="x y">link</a>')).toBeUndefined();
    analyses.learn(['link'], [['link']], ['link']);
    expect(analyses.lexemesOf('<b>link</b>')).toBeUndefined();
  });

  it('forgets the least recently learnt words past its bound', () => {
    const analyses = new QueryAnalyses(2);
    analyses.learn(['one'], [['one']], ['one']);
    analyses.learn(['two'], [['two']], ['two']);
    analyses.learn(['one'], [['one']], ['one']);
    analyses.learn(['three'], [['three']], ['three']);
    expect(analyses.lexemesOf('two')).toBeUndefined();
    expect(analyses.lexemesOf('one three')).toEqual(['one', 'three']);
  });

  it('stems a plain word once, and forgets past its bound', () => {
    const stemmed: string[] = [];
    const analyses = new QueryAnalyses(2, (word, variant) => {
      stemmed.push(word);
      return plainWordLexemes(word, variant);
    });
    const variant = STEMMER_VARIANTS[0] as (typeof STEMMER_VARIANTS)[number];
    analyses.adoptStemmer(PROBE_WORDS.map((word) => plainWordLexemes(word, variant) ?? []));
    stemmed.length = 0;
    expect(analyses.lexemesOf('running dogs')).toEqual(['dog', 'run']);
    expect(analyses.lexemesOf('dogs running')).toEqual(['dog', 'run']);
    expect(stemmed).toEqual(['running', 'dogs']);
    // A third word makes room: the words are stemmed again when next searched, the same.
    expect(analyses.lexemesOf('cats')).toEqual(['cat']);
    expect(analyses.lexemesOf('running cats')).toEqual(['cat', 'run']);
    expect(stemmed).toEqual(['running', 'dogs', 'cats', 'running']);
  });
});

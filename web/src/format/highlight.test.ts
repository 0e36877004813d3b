import { describe, expect, it } from 'vitest';
import { queryTerms, splitHighlights } from './highlight';

describe('queryTerms', () => {
  it('takes the words, once, longest first, dropping single letters and punctuation', () => {
    expect(queryTerms('How to "descale" the espresso-machine? a')).toEqual([
      'espresso',
      'descale',
      'machine',
      'how',
      'the',
      'to',
    ]);
  });

  it('reads words of any script', () => {
    expect(queryTerms('Müller café 東京')).toEqual(['müller', 'café', '東京']);
  });

  it('has nothing for a query without words', () => {
    expect(queryTerms('?! -')).toEqual([]);
  });
});

describe('splitHighlights', () => {
  it('marks every match, whatever its case, keeping the text whole', () => {
    const segments = splitHighlights('Descale the machine. DESCALE monthly.', queryTerms('descale'));
    expect(segments).toEqual([
      { text: 'Descale', match: true },
      { text: ' the machine. ', match: false },
      { text: 'DESCALE', match: true },
      { text: ' monthly.', match: false },
    ]);
    expect(segments.map((segment) => segment.text).join('')).toBe('Descale the machine. DESCALE monthly.');
  });

  it('prefers the longest term where two overlap', () => {
    expect(splitHighlights('indexing', queryTerms('index indexing'))).toEqual([
      { text: 'indexing', match: true },
    ]);
  });

  it('treats regular-expression characters in the query as text', () => {
    expect(splitHighlights('a (b) c', ['(b)'])).toEqual([
      { text: 'a ', match: false },
      { text: '(b)', match: true },
      { text: ' c', match: false },
    ]);
  });

  it('leaves markup as text: it is only split, never parsed', () => {
    expect(splitHighlights('<img src=x> token', ['token'])).toEqual([
      { text: '<img src=x> ', match: false },
      { text: 'token', match: true },
    ]);
  });

  it('returns the text as one plain segment without terms', () => {
    expect(splitHighlights('plain', [])).toEqual([{ text: 'plain', match: false }]);
    expect(splitHighlights('', ['x'])).toEqual([]);
  });
});

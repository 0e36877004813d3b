import { describe, expect, it } from 'vitest';
import { splitCitations } from './citations';

describe('splitCitations', () => {
  it('splits the citations out of the text', () => {
    expect(splitCitations('Descale monthly [1], or weekly [2][3].')).toEqual([
      { type: 'text', value: 'Descale monthly ' },
      { type: 'citation', citation: 1 },
      { type: 'text', value: ', or weekly ' },
      { type: 'citation', citation: 2 },
      { type: 'citation', citation: 3 },
      { type: 'text', value: '.' },
    ]);
  });

  it('reads a citation at either end', () => {
    expect(splitCitations('[12] says so')).toEqual([
      { type: 'citation', citation: 12 },
      { type: 'text', value: ' says so' },
    ]);
    expect(splitCitations('so says [4]')).toEqual([
      { type: 'text', value: 'so says ' },
      { type: 'citation', citation: 4 },
    ]);
  });

  it('leaves what only looks like a citation', () => {
    for (const text of ['[a]', '[ 1 ]', '[1.5]', '[0]', '[2024]', '[-1]', 'array[i]', '']) {
      expect(
        splitCitations(text).filter((segment) => segment.type === 'citation'),
        text,
      ).toEqual([]);
      expect(
        splitCitations(text)
          .map((segment) => (segment.type === 'text' ? segment.value : ''))
          .join(''),
      ).toBe(text);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { TermFrequencyCache } from './term-frequency-cache.js';

describe('TermFrequencyCache', () => {
  it("offers the remembered lexemes a query's words may stem to, per team", () => {
    const cache = new TermFrequencyCache();
    cache.remember(1, [
      ['procedur', 400],
      ['studi', 90],
      ['cell', 7000],
    ]);
    cache.remember(2, [['cell', 3]]);
    expect(cache.candidates(1, 'Procedures of the STUDY on cells')).toEqual(
      new Map([
        ['procedur', 400],
        ['studi', 90],
        ['cell', 7000],
      ]),
    );
    expect(cache.candidates(2, 'cells')).toEqual(new Map([['cell', 3]]));
    expect(cache.candidates(3, 'cells')).toEqual(new Map());
  });

  it('forgets a frequency after its time to live, and everything when full', () => {
    let now = 0;
    const cache = new TermFrequencyCache(1_000, 2, () => now);
    cache.remember(1, [['cell', 5]]);
    now = 999;
    expect(cache.candidates(1, 'cell').get('cell')).toBe(5);
    now = 1_000;
    expect(cache.candidates(1, 'cell').size).toBe(0);
    const full = new TermFrequencyCache(1_000, 2, () => now);
    full.remember(1, [
      ['a1', 1],
      ['b1', 1],
      ['c1', 1],
    ]);
    expect(full.candidates(1, 'a1 b1 c1')).toEqual(new Map([['c1', 1]]));
  });
});

import { describe, expect, it } from 'vitest';
import { fuseRankings } from './fusion.js';
import { parseQuery } from './query-text.js';

describe('fuseRankings', () => {
  it('lifts a chunk both rankings hold above one only a single ranking puts first', () => {
    const fused = fuseRankings(
      [
        { ranking: [1, 2, 3], weight: 1 },
        { ranking: [4, 2, 5], weight: 1 },
      ],
      60,
      10,
    );
    expect(fused[0]?.chunkId).toBe(2);
    expect(fused.map((result) => result.chunkId).sort()).toEqual([1, 2, 3, 4, 5]);
  });

  it('lets a light second ranking break ties without reordering the first', () => {
    const fused = fuseRankings(
      [
        { ranking: [1, 2, 3], weight: 1 },
        { ranking: [3, 2, 1], weight: 0.01 },
      ],
      60,
      3,
    );
    expect(fused.map((result) => result.chunkId)).toEqual([1, 2, 3]);
  });

  it('ignores rankings of weight 0 and cuts at the limit', () => {
    const fused = fuseRankings(
      [
        { ranking: [1, 2, 3], weight: 1 },
        { ranking: [9, 8], weight: 0 },
      ],
      60,
      2,
    );
    expect(fused.map((result) => result.chunkId)).toEqual([1, 2]);
  });
});

describe('parseQuery', () => {
  it('finds straight and curly quoted phrases and keeps their words in the text', () => {
    expect(parseQuery('error "ledger lock" in “billing export”')).toEqual({
      text: 'error ledger lock in billing export',
      phrases: ['ledger lock', 'billing export'],
    });
  });

  it('treats an unpaired quote as a character', () => {
    expect(parseQuery('the 5" screen')).toEqual({ text: 'the 5" screen', phrases: [] });
  });
});

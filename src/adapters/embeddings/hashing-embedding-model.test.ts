import { describe, expect, it } from 'vitest';
import { HashingEmbeddingModel } from './hashing-embedding-model.js';

function cosine(left: readonly number[], right: readonly number[]): number {
  return left.reduce((sum, value, index) => sum + value * (right[index] ?? 0), 0);
}

function norm(vector: readonly number[]): number {
  return Math.sqrt(cosine(vector, vector));
}

describe('HashingEmbeddingModel', () => {
  it('names its vector space by its dimensions', () => {
    expect(new HashingEmbeddingModel().id).toBe('hashing:256');
    expect(new HashingEmbeddingModel({ dimensions: 32 }).id).toBe('hashing:32');
  });

  it('gives the same vector for the same text, across instances', async () => {
    const texts = ['Quarterly revenue grew by 12%', 'Équipe de nuit', ''];
    const first = await new HashingEmbeddingModel().embed(texts, { purpose: 'document' });
    const second = await new HashingEmbeddingModel().embed(texts, { purpose: 'query' });
    expect(second).toEqual(first);
    expect(first).toHaveLength(3);
    for (const vector of first) expect(vector).toHaveLength(256);
  });

  it('returns unit vectors, even for a text without words', async () => {
    const model = new HashingEmbeddingModel({ dimensions: 64 });
    const vectors = await model.embed(['one two three', 'Hello, hello!', '', '  ...  '], {
      purpose: 'document',
    });
    for (const vector of vectors) {
      expect(norm(vector)).toBeCloseTo(1, 10);
      expect(vector.every(Number.isFinite)).toBe(true);
    }
  });

  it('ignores case and punctuation', () => {
    const model = new HashingEmbeddingModel();
    expect(model.vectorFor('The Vacation Policy!')).toEqual(model.vectorFor('the vacation policy'));
  });

  it('puts texts sharing words closer than unrelated texts', () => {
    const model = new HashingEmbeddingModel();
    const query = model.vectorFor('how many vacation days do employees get');
    const related = model.vectorFor('Employees get 25 vacation days per year.');
    const inflected = model.vectorFor('employee vacations');
    const unrelated = model.vectorFor('The build pipeline compiles TypeScript with strict checks.');
    expect(cosine(query, related)).toBeGreaterThan(cosine(query, unrelated) + 0.3);
    expect(cosine(query, inflected)).toBeGreaterThan(cosine(query, unrelated));
  });

  it('refuses an aborted call', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(
      new HashingEmbeddingModel().embed(['text'], { purpose: 'document', signal: controller.signal }),
    ).rejects.toThrow('stop');
  });

  it('refuses nonsense dimensions', () => {
    expect(() => new HashingEmbeddingModel({ dimensions: 0 })).toThrow(RangeError);
    expect(() => new HashingEmbeddingModel({ dimensions: 2.5 })).toThrow(RangeError);
  });
});

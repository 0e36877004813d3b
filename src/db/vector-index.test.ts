import { describe, expect, it } from 'vitest';
import { indexedVectorType } from './vector-index.js';

describe('indexedVectorType', () => {
  it('indexes up to 2,000 dimensions as vector and up to 4,000 as halfvec, refusing more', () => {
    expect(indexedVectorType(384)).toEqual({ cast: 'vector(384)', operators: 'vector_cosine_ops' });
    expect(indexedVectorType(2000).cast).toBe('vector(2000)');
    expect(indexedVectorType(3072)).toEqual({ cast: 'halfvec(3072)', operators: 'halfvec_cosine_ops' });
    expect(() => indexedVectorType(4097)).toThrow(/EMBEDDING_DIMENSIONS/);
    expect(() => indexedVectorType(0)).toThrow();
  });
});

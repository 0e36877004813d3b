import { describe, expect, it } from 'vitest';
import { plain } from '../../bench/answer-quality/measures.js';

describe('how the answer-quality bench reads an answer', () => {
  it('takes out the markers citing its sources, and keeps a bracketed list the answer quotes', () => {
    const answer = {
      text: 'statusCodes number[] (optional) - Array of HTTP status codes to retry [2]. Default: [429, 500, 502, 503, 504]',
      sources: [{ file_path: 'upload/undici-RetryHandler.md', citation: 2 }],
    };
    expect(plain(answer)).toBe(
      'statusCodes number[] (optional) - Array of HTTP status codes to retry. Default: [429, 500, 502, 503, 504]',
    );
  });

  it('takes out a marker citing several sources at once', () => {
    const answer = {
      text: 'Both say so [1, 2].',
      sources: [
        { file_path: 'upload/a.md', citation: 1 },
        { file_path: 'upload/b.md', citation: 2 },
      ],
    };
    expect(plain(answer)).toBe('Both say so.');
  });
});

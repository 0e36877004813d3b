import { describe, expect, it } from 'vitest';
import type { LocalFile } from './collect-files.js';
import { fileRequests, fileUploads } from './upload-files.js';

const file = (relativePath: string, size = 10): LocalFile => ({
  absolutePath: `/data/${relativePath}`,
  relativePath,
  size,
  mimeType: 'text/plain',
});

const names = (requests: Iterable<{ relativePath: string }[]>) =>
  [...requests].map((request) => request.map((upload) => upload.relativePath));

describe('fileRequests', () => {
  it('shares requests only between files the service would name by their very path', () => {
    const uploads = fileUploads(
      [file('a.txt'), file('sub/b.txt'), file('c.txt'), file('say "hi".txt'), file('d.txt')],
      '',
    );
    const limits = { files: 20, bytes: 1000, refusedFileBytes: Number.POSITIVE_INFINITY };
    expect(names(fileRequests(uploads, limits))).toEqual([
      ['sub/b.txt'],
      ['say "hi".txt'],
      ['a.txt', 'c.txt', 'd.txt'],
    ]);
  });

  it('keeps to the file count and byte budget, and sends every file alone under a prefix', () => {
    const uploads = fileUploads(
      [file('a.txt', 400), file('b.txt', 400), file('c.txt', 400), file('d.txt')],
      '',
    );
    const limits = { files: 2, bytes: 1000, refusedFileBytes: Number.POSITIVE_INFINITY };
    expect(names(fileRequests(uploads, limits))).toEqual([
      ['a.txt', 'b.txt'],
      ['c.txt', 'd.txt'],
    ]);
    const prefixed = fileUploads([file('a.txt'), file('b.txt')], 'handbook/');
    expect(prefixed.map((upload) => upload.externalId)).toEqual(['handbook/a.txt', 'handbook/b.txt']);
    expect(names(fileRequests(prefixed, limits))).toEqual([['a.txt'], ['b.txt']]);
  });
});

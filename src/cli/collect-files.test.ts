import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectFiles, mimeTypeOf } from './collect-files.js';

describe('collectFiles', () => {
  let base: string;
  beforeAll(async () => {
    base = await mkdtemp(path.join(tmpdir(), 'collect-files-'));
  });
  afterAll(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it('walks the folder in name order, leaves dot names out, and follows links only to files inside', async () => {
    const root = path.join(base, 'docs');
    await mkdir(path.join(root, 'b', 'deep'), { recursive: true });
    await mkdir(path.join(root, '.cache'), { recursive: true });
    await writeFile(path.join(root, 'z.md'), '# z');
    await writeFile(path.join(root, 'A.TXT'), 'upper-case extension');
    await writeFile(path.join(root, 'b', 'deep', 'page.htm'), '<p>x</p>');
    await writeFile(path.join(root, 'b', 'image.jpeg'), 'not text');
    await writeFile(path.join(root, 'Makefile'), 'all:');
    await writeFile(path.join(root, '.env.md'), 'secret');
    await writeFile(path.join(root, '.cache', 'x.md'), 'cached');
    await writeFile(path.join(base, 'elsewhere.md'), 'outside');
    await symlink(path.join(root, 'z.md'), path.join(root, 'inside-link.md'));
    await symlink(path.join(base, 'elsewhere.md'), path.join(root, 'outside-link.md'));
    await symlink(path.join(root, 'b'), path.join(root, 'folder-link'));
    await symlink(path.join(root, 'missing.md'), path.join(root, 'broken-link.md'));

    const { files, skipped } = await collectFiles(root);
    expect(files.map((file) => [file.relativePath, file.mimeType])).toEqual([
      ['A.TXT', 'text/plain'],
      ['b/deep/page.htm', 'text/html'],
      ['inside-link.md', 'text/markdown'],
      ['z.md', 'text/markdown'],
    ]);
    expect(files[0]?.size).toBe(Buffer.byteLength('upper-case extension'));
    expect(skipped.map((file) => [file.relativePath, file.reason])).toEqual([
      ['Makefile', 'unsupported_type'],
      ['b/image.jpeg', 'unsupported_type'],
      ['broken-link.md', 'symlink'],
      ['folder-link', 'symlink'],
      ['outside-link.md', 'symlink'],
    ]);
  });

  it('knows the types the service reads', () => {
    expect(mimeTypeOf('report.PDF')).toBe('application/pdf');
    expect(mimeTypeOf('notes.markdown')).toBe('text/markdown');
    expect(mimeTypeOf('data.json')).toBe('application/json');
    expect(mimeTypeOf('sheet.xlsx')).toBeUndefined();
    expect(mimeTypeOf('README')).toBeUndefined();
  });
});

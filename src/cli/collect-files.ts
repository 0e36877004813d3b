import type { Dirent } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';

/** The extensions the service parses, with the type each is sent as. */
export const MIME_TYPE_BY_EXTENSION: ReadonlyMap<string, string> = new Map([
  ['.pdf', 'application/pdf'],
  ['.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
  ['.md', 'text/markdown'],
  ['.markdown', 'text/markdown'],
  ['.txt', 'text/plain'],
  ['.html', 'text/html'],
  ['.htm', 'text/html'],
  ['.csv', 'text/csv'],
  ['.json', 'application/json'],
]);

export interface LocalFile {
  readonly absolutePath: string;
  /** Relative to the folder walked, with `/` separators whatever the platform. */
  readonly relativePath: string;
  readonly size: number;
  readonly mimeType: string;
}

export interface SkippedLocalFile {
  readonly relativePath: string;
  readonly reason: 'unsupported_type' | 'symlink';
  readonly message: string;
}

/** A subfolder or file that could not be read (permissions, or gone while walking). */
export interface UnreadableEntry {
  readonly relativePath: string;
  readonly message: string;
}

export interface CollectedFiles {
  readonly files: LocalFile[];
  readonly skipped: SkippedLocalFile[];
  readonly unreadable: UnreadableEntry[];
}

/** The type a file is uploaded as, by its extension; undefined when the service would not read it. */
export function mimeTypeOf(fileName: string): string | undefined {
  return MIME_TYPE_BY_EXTENSION.get(path.extname(fileName).toLowerCase());
}

/**
 * Every file below `root` in name order, split into those to upload, those skipped for their
 * type, and those that could not be read. Names starting with a dot are left out, files and
 * folders alike. A symbolic link is followed only to a file inside `root`; links to folders are
 * not followed (no cycles, no file seen twice).
 */
export async function collectFiles(root: string): Promise<CollectedFiles> {
  const rootReal = await realpath(root);
  const files: LocalFile[] = [];
  const skipped: SkippedLocalFile[] = [];
  const unreadable: UnreadableEntry[] = [];

  async function visit(folder: string, relativeFolder: string): Promise<void> {
    let listed: Dirent[];
    try {
      listed = await readdir(folder, { withFileTypes: true });
    } catch (error) {
      // The folder itself must be readable; a subfolder that is not is reported and passed over.
      if (relativeFolder === '') throw error;
      unreadable.push({ relativePath: relativeFolder, message: (error as Error).message });
      return;
    }
    const entries = listed
      .filter((entry) => !entry.name.startsWith('.'))
      .sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
    for (const entry of entries) {
      const absolutePath = path.join(folder, entry.name);
      const relativePath = relativeFolder === '' ? entry.name : `${relativeFolder}/${entry.name}`;
      if (entry.isDirectory()) {
        await visit(absolutePath, relativePath);
        continue;
      }
      try {
        const target = entry.isSymbolicLink() ? await linkTarget(absolutePath, rootReal) : entry;
        if (typeof target === 'string') {
          skipped.push({ relativePath, reason: 'symlink', message: target });
          continue;
        }
        if (!target.isFile()) continue;
        const mimeType = mimeTypeOf(entry.name);
        if (mimeType === undefined) {
          skipped.push({
            relativePath,
            reason: 'unsupported_type',
            message: `${path.extname(entry.name) || 'no extension'}: not one of ${[...MIME_TYPE_BY_EXTENSION.keys()].join(' ')}`,
          });
          continue;
        }
        const { size } = await stat(absolutePath);
        files.push({ absolutePath, relativePath, size, mimeType });
      } catch (error) {
        unreadable.push({ relativePath, message: (error as Error).message });
      }
    }
  }

  await visit(root, '');
  return { files, skipped, unreadable };
}

/** What a link leads to when it may be followed, or why it is not followed. */
async function linkTarget(link: string, rootReal: string): Promise<Pick<Dirent, 'isFile'> | string> {
  let resolved: string;
  try {
    resolved = await realpath(link);
  } catch {
    return 'a broken symbolic link';
  }
  if (resolved !== rootReal && !resolved.startsWith(`${rootReal}${path.sep}`)) {
    return 'a symbolic link out of the folder: not followed';
  }
  const target = await stat(resolved);
  if (target.isDirectory()) return 'a symbolic link to a folder: not followed';
  return target;
}

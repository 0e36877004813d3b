import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import { isUploadKey, type StoredUpload, type UploadStore } from './upload-store.js';

/**
 * Uploads as files in a folder (the embedded default's `DATA_DIR/uploads`, where the one process
 * that serves and indexes finds them). A file is written under a temporary name and renamed once
 * complete, so a crash mid-upload leaves no file that looks whole; leftovers are swept.
 */
export class DirectoryUploadStore implements UploadStore {
  constructor(private readonly directory: string) {}

  async put(content: AsyncIterable<Uint8Array>, onChunk?: (bytes: number) => void): Promise<StoredUpload> {
    await mkdir(this.directory, { recursive: true, mode: 0o700 });
    const key = randomUUID();
    const partial = path.join(this.directory, `${key}.partial`);
    const hash = createHash('sha256');
    let size = 0;
    const file = createWriteStream(partial, { mode: 0o600 });
    // An error of the stream itself (disk full) surfaces through `finished` below.
    file.on('error', () => {});
    try {
      for await (const chunk of content) {
        onChunk?.(chunk.length);
        hash.update(chunk);
        size += chunk.length;
        if (!file.write(chunk)) await new Promise<void>((resolve) => file.once('drain', resolve));
      }
      file.end();
      await finished(file);
      await rename(partial, path.join(this.directory, key));
    } catch (error) {
      file.destroy();
      await rm(partial, { force: true });
      throw error;
    }
    return { key, size, sha256: hash.digest('hex') };
  }

  async read(key: string): Promise<Uint8Array | undefined> {
    if (!isUploadKey(key)) return undefined;
    try {
      return await readFile(path.join(this.directory, key));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async delete(keys: readonly string[]): Promise<void> {
    await Promise.all(
      keys.filter(isUploadKey).map((key) => rm(path.join(this.directory, key), { force: true })),
    );
  }

  async sweep(storedBefore: Date, inUse: ReadonlySet<string>): Promise<number> {
    let names: string[];
    try {
      names = await readdir(this.directory);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw error;
    }
    let removed = 0;
    for (const name of names) {
      const key = name.endsWith('.partial') ? name.slice(0, -'.partial'.length) : name;
      if (!isUploadKey(key) || inUse.has(key)) continue;
      const file = path.join(this.directory, name);
      const stats = await stat(file).catch(() => undefined);
      if (stats === undefined || stats.mtime >= storedBefore) continue;
      await rm(file, { force: true });
      removed += 1;
    }
    return removed;
  }
}

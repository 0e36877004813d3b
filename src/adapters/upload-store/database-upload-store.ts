import { createHash, randomUUID } from 'node:crypto';
import {
  deleteUploadBlobs,
  insertUploadBlobPart,
  readUploadBlob,
  sweepUploadBlobs,
} from '../../db/repositories/upload-blobs.js';
import type { SqlExecutor } from '../../db/sql-connection.js';
import { isUploadKey, type StoredUpload, type UploadStore } from './upload-store.js';

/** Bytes per stored part: no statement carries more, whatever the file's size. */
const PART_BYTES = 1024 * 1024;

/**
 * Uploads in the database (`upload_blobs`), for PostgreSQL deployments whose API and worker
 * processes share no disk: each MiB is written as it arrives, in its own statement.
 */
export class DatabaseUploadStore implements UploadStore {
  constructor(private readonly sql: SqlExecutor) {}

  async put(content: AsyncIterable<Uint8Array>, onChunk?: (bytes: number) => void): Promise<StoredUpload> {
    const key = randomUUID();
    const hash = createHash('sha256');
    let size = 0;
    let part = 0;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const flush = async () => {
      await insertUploadBlobPart(this.sql, key, part, Buffer.concat(pending, pendingBytes));
      part += 1;
      pending = [];
      pendingBytes = 0;
    };
    try {
      for await (const chunk of content) {
        onChunk?.(chunk.length);
        hash.update(chunk);
        size += chunk.length;
        // Copied: the stream may hand out views of a pooled buffer it reuses.
        let rest = Buffer.from(chunk);
        while (pendingBytes + rest.length >= PART_BYTES) {
          const take = PART_BYTES - pendingBytes;
          pending.push(rest.subarray(0, take));
          pendingBytes += take;
          rest = rest.subarray(take);
          await flush();
        }
        if (rest.length > 0) {
          pending.push(rest);
          pendingBytes += rest.length;
        }
      }
      if (pendingBytes > 0 || part === 0) await flush();
    } catch (error) {
      await deleteUploadBlobs(this.sql, [key]).catch(() => {});
      throw error;
    }
    return { key, size, sha256: hash.digest('hex') };
  }

  async read(key: string): Promise<Uint8Array | undefined> {
    if (!isUploadKey(key)) return undefined;
    return readUploadBlob(this.sql, key);
  }

  async delete(keys: readonly string[]): Promise<void> {
    const ours = keys.filter(isUploadKey);
    if (ours.length > 0) await deleteUploadBlobs(this.sql, ours);
  }

  sweep(storedBefore: Date, inUse: ReadonlySet<string>): Promise<number> {
    return sweepUploadBlobs(this.sql, storedBefore, [...inUse].filter(isUploadKey));
  }
}

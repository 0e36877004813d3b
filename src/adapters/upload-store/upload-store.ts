/** An uploaded file as stored until its index job is done with it. */
export interface StoredUpload {
  /** Where it is kept: a random UUID. */
  readonly key: string;
  readonly size: number;
  /** Hex SHA-256 of its bytes: an unchanged file posted again is recognised without parsing it. */
  readonly sha256: string;
}

/**
 * Where uploaded files wait for their index job: streamed in as they arrive (a request's files are
 * never all in memory), read once by the job, deleted when it is done with them.
 */
export interface UploadStore {
  /**
   * Stores `content` as it streams. `onChunk` sees each chunk's size first and may throw (a request
   * over its limit): then nothing stays stored and the error is rethrown.
   */
  put(content: AsyncIterable<Uint8Array>, onChunk?: (bytes: number) => void): Promise<StoredUpload>;
  /** The file's bytes; undefined when it is not (or no longer) stored. */
  read(key: string): Promise<Uint8Array | undefined>;
  delete(keys: readonly string[]): Promise<void>;
  /**
   * Deletes files stored before `storedBefore` whose key `inUse` does not hold (a request that
   * failed after storing them, a job whose team was deleted); answers how many went.
   */
  sweep(storedBefore: Date, inUse: ReadonlySet<string>): Promise<number>;
}

/** Keys are UUIDs we made: anything else is not ours to read or delete. */
export function isUploadKey(key: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(key);
}

import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../../db/client.js';
import { DatabaseUploadStore } from './database-upload-store.js';
import { DirectoryUploadStore } from './directory-upload-store.js';
import type { UploadStore } from './upload-store.js';

async function* pieces(bytes: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let start = 0; start < bytes.length; start += size) yield bytes.subarray(start, start + size);
}

const directory = mkdtempSync(path.join(tmpdir(), 'uploads-'));
let database: DatabaseHandle;

beforeAll(async () => {
  database = await openDatabase({ kind: 'embedded', dataDir: undefined });
});

afterAll(async () => {
  await database.close();
  rmSync(directory, { recursive: true, force: true });
});

/** Files a store holds, complete or not. */
async function storedCount(store: UploadStore): Promise<number> {
  if (store instanceof DirectoryUploadStore) return readdirSync(directory).length;
  const { rows } = await database.sql.executeSql('SELECT count(DISTINCT key) AS files FROM upload_blobs');
  return Number(rows[0]?.files);
}

const stores: [string, () => UploadStore][] = [
  ['DirectoryUploadStore', () => new DirectoryUploadStore(directory)],
  ['DatabaseUploadStore', () => new DatabaseUploadStore(database.sql)],
];

describe.each(stores)('%s', (_name, makeStore) => {
  it('gives back a file streamed in pieces (across its MiB parts), with its size and SHA-256', async () => {
    const store = makeStore();
    const bytes = Buffer.alloc(1.5 * 1024 * 1024 + 17);
    for (let index = 0; index < bytes.length; index++) bytes[index] = (index * 31 + 7) % 251;
    const stored = await store.put(pieces(bytes, 64 * 1024 + 3));
    expect(stored.size).toBe(bytes.length);
    expect(stored.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(Buffer.from((await store.read(stored.key)) ?? [])).toEqual(bytes);
    const empty = await store.put(pieces(Buffer.alloc(0), 1));
    expect((await store.read(empty.key))?.length).toBe(0);
  });

  it('keeps nothing of a file whose stream is refused midway', async () => {
    const store = makeStore();
    const before = await storedCount(store);
    let seen = 0;
    const refusal = new Error('over the limit');
    await expect(
      store.put(pieces(Buffer.alloc(3 * 1024 * 1024, 1), 256 * 1024), (bytes) => {
        seen += bytes;
        if (seen > 2 * 1024 * 1024) throw refusal;
      }),
    ).rejects.toBe(refusal);
    expect(await storedCount(store)).toBe(before);
  });

  it('deletes files, and sweeps old ones that nothing uses', async () => {
    const store = makeStore();
    const deleted = await store.put(pieces(Buffer.from('deleted'), 3));
    await store.delete([deleted.key, 'not-a-key/../../etc']);
    expect(await store.read(deleted.key)).toBeUndefined();

    const used = await store.put(pieces(Buffer.from('still queued'), 5));
    const orphan = await store.put(pieces(Buffer.from('its request failed'), 5));
    const fresh = await store.put(pieces(Buffer.from('being uploaded'), 5));
    const hourAgo = new Date(Date.now() - 3600_000);
    if (store instanceof DirectoryUploadStore) {
      for (const key of [used.key, orphan.key]) utimesSync(path.join(directory, key), hourAgo, hourAgo);
    } else {
      await database.sql.executeSql('UPDATE upload_blobs SET created_at = $2 WHERE key = ANY($1::uuid[])', [
        [used.key, orphan.key],
        hourAgo,
      ]);
    }
    const removed = await store.sweep(new Date(Date.now() - 60_000), new Set([used.key]));
    expect(removed).toBe(1);
    expect(await store.read(orphan.key)).toBeUndefined();
    expect(Buffer.from((await store.read(used.key)) ?? []).toString()).toBe('still queued');
    expect(Buffer.from((await store.read(fresh.key)) ?? []).toString()).toBe('being uploaded');
    await store.delete([used.key, fresh.key]);
  });
});

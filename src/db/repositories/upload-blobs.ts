import type { SqlExecutor } from '../sql-connection.js';

export async function insertUploadBlobPart(
  db: SqlExecutor,
  key: string,
  part: number,
  bytes: Uint8Array,
): Promise<void> {
  await db.executeSql('INSERT INTO upload_blobs (key, part, bytes) VALUES ($1, $2, $3)', [key, part, bytes]);
}

/**
 * A stored upload's bytes, its parts in order; undefined when none are stored (or they went while
 * being read). A part at a time, into one buffer: read at once, a 30 MiB upload came over the
 * wire as 60 MiB of hex text and was held three times over (the text, its parts, their concat).
 */
export async function readUploadBlob(db: SqlExecutor, key: string): Promise<Uint8Array | undefined> {
  const { rows: parts } = await db.executeSql<{ part: number; size: number }>(
    'SELECT part, octet_length(bytes) AS size FROM upload_blobs WHERE key = $1 ORDER BY part',
    [key],
  );
  if (parts.length === 0) return undefined;
  const bytes = new Uint8Array(parts.reduce((total, part) => total + Number(part.size), 0));
  let offset = 0;
  for (const { part } of parts) {
    const { rows } = await db.executeSql<{ bytes: Uint8Array }>(
      'SELECT bytes FROM upload_blobs WHERE key = $1 AND part = $2',
      [key, part],
    );
    const stored = rows[0]?.bytes;
    if (stored === undefined || offset + stored.byteLength > bytes.byteLength) return undefined;
    bytes.set(stored, offset);
    offset += stored.byteLength;
  }
  return offset === bytes.byteLength ? bytes : undefined;
}

export async function deleteUploadBlobs(db: SqlExecutor, keys: readonly string[]): Promise<void> {
  await db.executeSql('DELETE FROM upload_blobs WHERE key = ANY($1::uuid[])', [keys]);
}

/** Deletes uploads stored before `storedBefore` but those in `keep`; answers how many went. */
export async function sweepUploadBlobs(
  db: SqlExecutor,
  storedBefore: Date,
  keep: readonly string[],
): Promise<number> {
  const { rows } = await db.executeSql<{ removed: string | number }>(
    `WITH gone AS (
       DELETE FROM upload_blobs WHERE key IN (
         SELECT key FROM upload_blobs GROUP BY key HAVING max(created_at) < $1
       ) AND NOT (key = ANY($2::uuid[]))
       RETURNING key
     )
     SELECT count(DISTINCT key) AS removed FROM gone`,
    [storedBefore, keep],
  );
  return Number(rows[0]?.removed ?? 0);
}

import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Embedded mode only: reads the key kept in the data directory, creating it (mode 0600) on the
 * first start, so a laptop install needs no set-up and keeps its secrets readable across restarts.
 */
export function loadOrCreateEmbeddedKey(dataDir: string): Buffer {
  const file = path.join(dataDir, 'encryption.key');
  try {
    return decodeKey(readFileSync(file, 'utf8'), file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  try {
    // 'wx' fails if another process created it first; then we read theirs.
    writeFileSync(file, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return decodeKey(readFileSync(file, 'utf8'), file);
  }
}

function decodeKey(text: string, file: string): Buffer {
  const key = Buffer.from(text.trim(), 'hex');
  if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte hex key`);
  return key;
}

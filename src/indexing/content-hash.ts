import { createHash } from 'node:crypto';
import type { Chunk } from './document.js';

// Bump when the serialisation changes on purpose, so every stored hash misses once.
const FORMAT = 'chunks-v1';

/**
 * SHA-256 (hex) of a document's title and chunks, over a canonical serialisation: equal content
 * gives an equal hash, whatever the key order of the objects. Files whose hash is unchanged
 * are skipped. `tokenCount` is left out: it follows from the text.
 */
export function contentHash(title: string, chunks: readonly Chunk[]): string {
  const canonical = JSON.stringify([
    FORMAT,
    title,
    chunks.map((chunk) => [chunk.position, chunk.text, [...chunk.headingPath], [...chunk.pageLabels]]),
  ]);
  return createHash('sha256').update(canonical).digest('hex');
}

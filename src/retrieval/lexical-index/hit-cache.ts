import type { UnscoredHit } from '../search-hit.js';

/** What a hit's strings and its entry cost the heap, roughly: two bytes a character and the objects. */
function hitBytes(hit: UnscoredHit): number {
  let characters = hit.text.length + hit.title.length + hit.externalId.length + hit.source.length;
  characters += (hit.url?.length ?? 0) + (hit.fileName?.length ?? 0) + (hit.mimeType?.length ?? 0);
  for (const heading of hit.headingPath) characters += heading.length;
  for (const label of hit.pageLabels) characters += label.length;
  return characters * 2 + 400;
}

/**
 * One team's search hits that its load and recent searches read from the database, kept by chunk
 * id within `maxBytes`, the least recently used given up first. The team's lexical sync drops every chunk
 * the database says changed (its postings, its access list or its document's fields: migrations
 * 0013 and 0014), so what is kept is what the database holds.
 */
export class HitCache {
  private readonly hits = new Map<number, UnscoredHit>();
  private used = 0;

  constructor(readonly maxBytes: number) {}

  get bytes(): number {
    return this.used;
  }

  get(chunkId: number): UnscoredHit | undefined {
    const hit = this.hits.get(chunkId);
    if (hit === undefined) return undefined;
    // Map order is insertion order: moving the hit to the end makes the first the least recent.
    this.hits.delete(chunkId);
    this.hits.set(chunkId, hit);
    return hit;
  }

  set(chunkId: number, hit: UnscoredHit): void {
    this.delete(chunkId);
    const bytes = hitBytes(hit);
    if (bytes > this.maxBytes) return;
    this.hits.set(chunkId, hit);
    this.used += bytes;
    for (const [oldest, oldHit] of this.hits) {
      if (this.used <= this.maxBytes) break;
      this.hits.delete(oldest);
      this.used -= hitBytes(oldHit);
    }
  }

  delete(chunkId: number): void {
    const hit = this.hits.get(chunkId);
    if (hit === undefined) return;
    this.hits.delete(chunkId);
    this.used -= hitBytes(hit);
  }
}

import type { ChunkHitRow } from '../../db/repositories/search.js';

/** A chunk as a search result shows it (its document's fields too), without a score. */
export type HitRow = Omit<ChunkHitRow, 'score'>;

/** What a row's strings and its entry cost the heap, roughly: two bytes a character and the objects. */
function rowBytes(row: HitRow): number {
  let characters = row.text.length + row.title.length + row.external_id.length + row.source.length;
  characters += (row.url?.length ?? 0) + (row.file_name?.length ?? 0) + (row.mime_type?.length ?? 0);
  for (const heading of row.heading_path ?? []) characters += heading.length;
  for (const label of row.page_labels ?? []) characters += label.length;
  return characters * 2 + 400;
}

/**
 * One team's search hits that its load and recent searches read from the database, kept by chunk
 * id within `maxBytes`, the least recently used given up first. The team's lexical sync drops every chunk
 * the database says changed (its postings, its access list or its document's fields: migrations
 * 0013 and 0014), so what is kept is what the database holds.
 */
export class HitCache {
  private readonly rows = new Map<number, HitRow>();
  private used = 0;

  constructor(readonly maxBytes: number) {}

  get bytes(): number {
    return this.used;
  }

  get(chunkId: number): HitRow | undefined {
    const row = this.rows.get(chunkId);
    if (row === undefined) return undefined;
    // Map order is insertion order: moving the row to the end makes the first the least recent.
    this.rows.delete(chunkId);
    this.rows.set(chunkId, row);
    return row;
  }

  set(chunkId: number, row: HitRow): void {
    this.delete(chunkId);
    const bytes = rowBytes(row);
    if (bytes > this.maxBytes) return;
    this.rows.set(chunkId, row);
    this.used += bytes;
    for (const [oldest, oldRow] of this.rows) {
      if (this.used <= this.maxBytes) break;
      this.rows.delete(oldest);
      this.used -= rowBytes(oldRow);
    }
  }

  delete(chunkId: number): void {
    const row = this.rows.get(chunkId);
    if (row === undefined) return;
    this.rows.delete(chunkId);
    this.used -= rowBytes(row);
  }
}

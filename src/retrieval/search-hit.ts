import type { ChunkHitRow } from '../db/repositories/search.js';
import type { SearchHit } from './search-types.js';

/** A hit as a team's hit cache keeps it: without a score, which belongs to one search. */
export type UnscoredHit = Omit<SearchHit, 'score'>;

/** A chunk's row with its document's fields, typed (drivers give ids as text, times as text or Date). */
export function unscoredHitOf(row: Omit<ChunkHitRow, 'score'>): UnscoredHit {
  return {
    chunkId: Number(row.id),
    documentId: Number(row.document_id),
    externalId: String(row.external_id),
    title: String(row.title),
    fileName: row.file_name === null ? null : String(row.file_name),
    url: row.url === null ? null : String(row.url),
    source: String(row.source),
    connectorId: row.connector_id === null ? null : Number(row.connector_id),
    mimeType: row.mime_type === null ? null : String(row.mime_type),
    text: String(row.text),
    headingPath: row.heading_path ?? [],
    pageLabels: row.page_labels ?? [],
    documentCreatedAt: new Date(row.created_at),
    sourceModifiedAt: row.source_modified_at === null ? null : new Date(row.source_modified_at),
  };
}

/** A ranked row as a search hit, with the score the ranking gave it. */
export function searchHitOf(row: ChunkHitRow): SearchHit {
  return { ...unscoredHitOf(row), score: Number(row.score) };
}

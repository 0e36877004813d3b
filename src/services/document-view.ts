import { type DocumentAccess, peopleAccess } from '../access.js';
import type { ListedDocument } from '../db/repositories/documents.js';

/**
 * A document's public JSON shape, as GET /v1/documents lists it and GET /v1/documents/{id} shows
 * it; `access` is who may open it (`lists` holds the document's access list, by id).
 */
export function documentView(document: ListedDocument, lists: ReadonlyMap<number, DocumentAccess>) {
  // A list is never deleted while a document uses it; nobody named is the safe reading otherwise.
  const access = lists.get(document.accessListId) ?? peopleAccess();
  const iso = (date: Date | null) => (date === null ? null : date.toISOString());
  const { lastJob } = document;
  return {
    id: document.id,
    external_id: document.externalId,
    title: document.title,
    source: document.source,
    status: document.status,
    reason: document.reason,
    chunks: document.chunkCount,
    url: document.url,
    connector_id: document.connectorId,
    mime_type: document.mimeType,
    created_at: iso(document.createdAt),
    updated_at: iso(document.updatedAt),
    indexed_at: iso(document.indexedAt),
    access: {
      team: access.team,
      emails: [...access.emails],
      domains: [...access.domains],
      groups: [...access.groups],
    },
    last_job:
      lastJob === null
        ? null
        : {
            id: lastJob.id,
            status: lastJob.status,
            reason: lastJob.reason,
            message: lastJob.message,
            at: iso(lastJob.at),
          },
  };
}

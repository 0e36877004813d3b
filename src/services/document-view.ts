import { type DocumentAccess, peopleAccess } from '../access.js';
import type { Caller } from '../caller.js';
import type { ListedDocument } from '../db/repositories/documents.js';
import { mayDeleteDocument } from './delete-document.js';

/**
 * A document's public JSON shape, as GET /v1/documents lists it and GET /v1/documents/{id} shows
 * it to `caller`, who may open it; `access` is who may open it (`lists` holds the document's access
 * list, by id), `can_delete` whether DELETE would succeed for the caller.
 */
export function documentView(
  document: ListedDocument,
  lists: ReadonlyMap<number, DocumentAccess>,
  caller: Pick<Caller, 'userId' | 'role'>,
) {
  // A list is never deleted while a document uses it; nobody named is the safe reading otherwise.
  const access = lists.get(document.accessListId) ?? peopleAccess();
  const iso = (date: Date | null) => (date === null ? null : date.toISOString());
  const { lastJob } = document;
  return {
    id: document.id,
    external_id: document.externalId,
    title: document.title,
    file_name: document.fileName,
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
    // Listed documents are ones the caller may open.
    can_delete: mayDeleteDocument(caller, { readable: true, indexedBy: document.indexedBy }),
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

import { memberReader } from '../access.js';
import type { Caller } from '../caller.js';
import type { ServiceDependencies } from './dependencies.js';
import { documentView } from './document-view.js';

/** The team's documents the caller may open, newest first, one page at a time, each with its access list. */
export async function listDocuments(
  deps: ServiceDependencies,
  caller: Caller,
  page: { limit: number; offset: number; source?: string | undefined },
) {
  const source = page.source ?? null;
  const reader = memberReader(caller);
  const [documents, total] = await Promise.all([
    deps.data.documents.listReadableDocuments(reader, { source, limit: page.limit, offset: page.offset }),
    deps.data.documents.countReadableDocuments(reader, source),
  ]);
  const access = await deps.data.accessLists.findAccessLists(
    caller.teamId,
    documents.map((document) => document.accessListId),
  );
  return {
    total,
    limit: page.limit,
    offset: page.offset,
    documents: documents.map((document) => documentView(document, access, caller)),
  };
}

import type { Caller } from '../caller.js';
import { countTeamDocuments, listTeamDocuments } from '../db/repositories/documents.js';
import type { ServiceDependencies } from './dependencies.js';
import { documentView } from './document-view.js';

/** The caller's team's documents, newest first, one page at a time. */
export async function listDocuments(
  deps: ServiceDependencies,
  caller: Caller,
  page: { limit: number; offset: number; source?: string | undefined },
) {
  const source = page.source ?? null;
  const [documents, total] = await Promise.all([
    listTeamDocuments(deps.sql, caller.teamId, { source, limit: page.limit, offset: page.offset }),
    countTeamDocuments(deps.sql, caller.teamId, source),
  ]);
  return {
    total,
    limit: page.limit,
    offset: page.offset,
    documents: documents.map(documentView),
  };
}

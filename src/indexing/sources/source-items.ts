import { type DocumentFields, deleteDocumentsNotListed } from '../../db/repositories/documents.js';
import {
  type IndexJobItemRow,
  type IndexJobRow,
  insertItems,
  type NewIndexJobItem,
  nextItemPosition,
} from '../../db/repositories/index-jobs.js';
import type { SqlExecutor } from '../../db/sql-connection.js';

/** What only the source knows of an item's document; the rest is the same for every source. */
export type DescribedFields = Pick<
  DocumentFields,
  'title' | 'url' | 'mimeType' | 'sourceVersion' | 'access'
> &
  Partial<
    Pick<
      DocumentFields,
      | 'connectorId'
      | 'sourceModifiedAt'
      | 'originId'
      | 'metadata'
      | 'indexedBy'
      | 'onlyItsIndexer'
      | 'fileName'
    >
  >;

/**
 * The document an item becomes: the job's team and connector (unless the source says otherwise),
 * the item's id, the job's requester as its indexer, and no modification time, origin or metadata
 * unless the source knows them. Who may open it is always the source's to say.
 */
export function documentFieldsOf(
  job: IndexJobRow,
  item: IndexJobItemRow,
  source: string,
  described: DescribedFields,
): DocumentFields {
  return {
    teamId: job.teamId,
    source,
    externalId: item.externalId,
    connectorId: job.connectorId,
    sourceModifiedAt: null,
    originId: null,
    metadata: {},
    indexedBy: job.requestedBy,
    ...described,
  };
}

/**
 * Queues a complete listing's items after the job's others, then deletes the connector's stored
 * documents the listing no longer has (only those from `originId`, a listed folder, when given).
 * Both steps are idempotent, as `expand` must be.
 */
export async function recordListing(
  sql: SqlExecutor,
  job: IndexJobRow,
  source: string,
  listed: readonly NewIndexJobItem[],
  originId?: string,
): Promise<void> {
  await insertItems(sql, job.id, listed, await nextItemPosition(sql, job.id));
  if (job.connectorId === null) return;
  await deleteDocumentsNotListed(
    sql,
    job.teamId,
    source,
    job.connectorId,
    listed.map((item) => item.externalId),
    originId,
  );
}

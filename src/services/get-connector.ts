import { and, asc, count, eq, inArray, sql } from 'drizzle-orm';
import type { Caller } from '../caller.js';
import { connectors, documents, indexJobItems, indexJobs } from '../db/schema.js';
import { ServiceError } from '../errors.js';
import type { ServiceDependencies } from './dependencies.js';
import { parseSerialId } from './serial-id.js';

/** Slugs by the names clients use for them. */
const SLUG_ALIASES: Readonly<Record<string, ConnectorSlug>> = {
  googledrive: 'googledrive',
  drive: 'googledrive',
  wiki: 'wiki',
  confluence: 'wiki',
  chatapp: 'chatapp',
  slack: 'chatapp',
};

export type ConnectorSlug = 'googledrive' | 'wiki' | 'chatapp';

export function canonicalSlug(slug: string): ConnectorSlug | undefined {
  const key = slug.toLowerCase();
  return Object.hasOwn(SLUG_ALIASES, key) ? SLUG_ALIASES[key] : undefined;
}

export type ConnectorRow = typeof connectors.$inferSelect;

/** One file of a Drive or wiki connector, with the outcome of its latest indexing. */
export interface ConnectorFileView {
  readonly id: string;
  readonly name: string;
  readonly status: string;
  readonly reason: string | null;
  readonly chunks: number;
  readonly url: string | null;
}

/** Most files a connector view lists; `document_count` has the whole number. */
export const CONNECTOR_FILES_LISTED = 1000;

/** The public view of a connector: its non-secret configuration, never its sealed secrets. */
export function connectorView(row: ConnectorRow, documentCount: number, files: ConnectorFileView[] = []) {
  const config = row.config;
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    team_id: row.teamId,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    status: row.status,
    last_synced_at: row.lastSyncedAt?.toISOString() ?? null,
    document_count: documentCount,
    config,
    ...(row.slug === 'wiki' ? { files } : {}),
    ...(row.slug === 'googledrive'
      ? {
          files,
          delegate_email: (config.delegate_email as string | undefined) ?? null,
        }
      : {}),
  };
}

const NOT_FOUND = 'Connector not found';

/** One connector of the caller's team; anything else (unknown slug or id, another team's) is 404. */
export async function getConnector(deps: ServiceDependencies, caller: Caller, slug: string, id: string) {
  const canonical = canonicalSlug(slug);
  const connectorId = parseSerialId(id);
  if (canonical === undefined || connectorId === undefined) throw new ServiceError('not_found', NOT_FOUND);
  const view = await findConnectorView(deps, caller.teamId, canonical, connectorId);
  if (view === undefined) throw new ServiceError('not_found', NOT_FOUND);
  return view;
}

/** A team's connector with its document count, or undefined when the team has no such connector. */
export async function findConnectorView(
  deps: ServiceDependencies,
  teamId: number,
  slug: ConnectorSlug,
  id: number,
): Promise<ReturnType<typeof connectorView> | undefined> {
  const [row] = await deps.db
    .select()
    .from(connectors)
    .where(and(eq(connectors.id, id), eq(connectors.slug, slug), eq(connectors.teamId, teamId)))
    .limit(1);
  if (row === undefined) return undefined;
  const [counted] = await deps.db
    .select({ value: count() })
    .from(documents)
    .where(and(eq(documents.connectorId, row.id), eq(documents.teamId, teamId)));
  const stored =
    row.slug === 'chatapp'
      ? []
      : await deps.db
          .select({
            id: documents.externalId,
            name: documents.title,
            status: documents.status,
            reason: documents.reason,
            chunks: documents.chunkCount,
            url: documents.url,
          })
          .from(documents)
          .where(and(eq(documents.connectorId, row.id), eq(documents.teamId, teamId)))
          .orderBy(asc(documents.id))
          .limit(CONNECTOR_FILES_LISTED);
  const files =
    row.slug === 'chatapp' ? [] : withPendingFiles(stored, await pendingFiles(deps, teamId, row.id));
  return connectorView(row, counted?.value ?? 0, files);
}

/** The files a running (or queued) job of the connector has not settled yet, in the job's order. */
async function pendingFiles(
  deps: ServiceDependencies,
  teamId: number,
  connectorId: number,
): Promise<ConnectorFileView[]> {
  return deps.db
    .select({
      id: indexJobItems.externalId,
      name: indexJobItems.name,
      status: indexJobItems.status,
      reason: indexJobItems.reason,
      chunks: indexJobItems.chunks,
      url: sql<string | null>`NULL`,
    })
    .from(indexJobItems)
    .innerJoin(indexJobs, eq(indexJobs.id, indexJobItems.jobId))
    .where(
      and(
        eq(indexJobs.connectorId, connectorId),
        eq(indexJobs.teamId, teamId),
        inArray(indexJobs.status, ['queued', 'running']),
        inArray(indexJobItems.status, ['queued', 'indexing']),
      ),
    )
    .orderBy(asc(indexJobs.createdAt), asc(indexJobItems.position))
    .limit(CONNECTOR_FILES_LISTED);
}

/**
 * The stored files with the live status of those a job is still working on, and the job's
 * files not stored yet after them: the connector lists each file as its job does.
 */
function withPendingFiles(
  stored: readonly ConnectorFileView[],
  pending: readonly ConnectorFileView[],
): ConnectorFileView[] {
  const live = new Map(pending.map((file) => [file.id, file]));
  const files = stored.map((file) => {
    const now = live.get(file.id);
    if (now === undefined) return file;
    live.delete(file.id);
    return { ...file, status: now.status, reason: now.reason };
  });
  return [...files, ...live.values()].slice(0, CONNECTOR_FILES_LISTED);
}

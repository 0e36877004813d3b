import { and, asc, count, eq } from 'drizzle-orm';
import type { Caller } from '../db/repositories/users.js';
import { connectors, documents } from '../db/schema.js';
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
  const files =
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
  return connectorView(row, counted?.value ?? 0, files);
}

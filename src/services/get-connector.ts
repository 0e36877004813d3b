import { and, count, eq } from 'drizzle-orm';
import type { Caller } from '../db/repositories/users.js';
import { connectors, documents } from '../db/schema.js';
import { ServiceError } from '../errors.js';
import type { ServiceDependencies } from './dependencies.js';

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

/** The public view of a connector: its non-secret configuration, never its sealed secrets. */
export function connectorView(row: ConnectorRow, documentCount: number) {
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
    ...(row.slug === 'googledrive'
      ? {
          files: (config.files as Record<string, unknown>[] | undefined) ?? [],
          delegate_email: (config.delegate_email as string | undefined) ?? null,
        }
      : {}),
  };
}

const NOT_FOUND = 'Connector not found';

/** One connector of the caller's team; anything else (unknown slug or id, another team's) is 404. */
export async function getConnector(deps: ServiceDependencies, caller: Caller, slug: string, id: string) {
  const canonical = canonicalSlug(slug);
  if (canonical === undefined || !/^[1-9]\d{0,9}$/.test(id) || Number(id) > 2_147_483_647) {
    throw new ServiceError('not_found', NOT_FOUND);
  }
  const view = await findConnectorView(deps, caller.teamId, canonical, Number(id));
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
  return connectorView(row, counted?.value ?? 0);
}

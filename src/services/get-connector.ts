import { memberReader, type Reader } from '../access.js';
import type { Caller } from '../caller.js';
import type { ConnectorRow } from '../db/repositories/connectors.js';
import type { ConnectorFile } from '../db/repositories/documents.js';
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

/** One file of a Drive or wiki connector, with the outcome of its latest indexing. */
export type ConnectorFileView = ConnectorFile;

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
  const view = await findConnectorView(deps, memberReader(caller), canonical, connectorId);
  if (view === undefined) throw new ServiceError('not_found', NOT_FOUND);
  return view;
}

/**
 * A team's connector with the count and list of its files the reader may open (and of the files
 * its jobs are still working on, those the reader asked for), or undefined when the team has no
 * such connector.
 */
export async function findConnectorView(
  deps: ServiceDependencies,
  reader: Reader,
  slug: ConnectorSlug,
  id: number,
): Promise<ReturnType<typeof connectorView> | undefined> {
  const row = await deps.data.connectors.findTeamConnector(reader.teamId, slug, id);
  if (row === undefined) return undefined;
  const documentCount = await deps.data.documents.countReadableConnectorDocuments(reader, row.id);
  if (row.slug === 'chatapp') return connectorView(row, documentCount);
  const stored = await deps.data.documents.listReadableConnectorFiles(reader, row.id, CONNECTOR_FILES_LISTED);
  const pending = await deps.data.indexJobs.listPendingConnectorFiles(reader, row.id, CONNECTOR_FILES_LISTED);
  return connectorView(row, documentCount, withPendingFiles(stored, pending));
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

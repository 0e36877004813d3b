import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '../client.js';
import { connectors } from '../schema.js';
import type { SqlExecutor } from '../sql-connection.js';

/** A stored connector, as drizzle reads it (its sealed secrets included: never show them). */
export type ConnectorRow = typeof connectors.$inferSelect;

/** Which connector: its id and kind (`wiki`, `googledrive`, `chatapp`). */
export interface ConnectorRef {
  readonly id: number;
  readonly slug: string;
}

/**
 * Every connector of a team, oldest first. A team has at most one wiki and one Drive connector
 * and a Slack installation per workspace, so this is a handful of rows.
 */
export async function listTeamConnectorRefs(db: SqlExecutor, teamId: number): Promise<ConnectorRef[]> {
  const { rows } = await db.executeSql<{ id: number | string; slug: string }>(
    'SELECT id, slug FROM connectors WHERE team_id = $1 ORDER BY id',
    [teamId],
  );
  return rows.map((row) => ({ id: Number(row.id), slug: String(row.slug) }));
}

/** A team's connector of this slug and id, or undefined when the team has no such connector. */
export async function findTeamConnector(
  db: Database,
  teamId: number,
  slug: string,
  id: number,
): Promise<ConnectorRow | undefined> {
  const [row] = await db
    .select()
    .from(connectors)
    .where(and(eq(connectors.id, id), eq(connectors.slug, slug), eq(connectors.teamId, teamId)))
    .limit(1);
  return row;
}

/** Whether the team has a wiki connector of this id. */
export async function teamWikiConnectorExists(db: SqlExecutor, teamId: number, id: number): Promise<boolean> {
  const { rows } = await db.executeSql<{ id: number }>(
    `SELECT id FROM connectors WHERE id = $1 AND team_id = $2 AND slug = 'wiki'`,
    [id, teamId],
  );
  return rows.length > 0;
}

/**
 * The team's one connector of this slug (Drive, wiki), created (`active`) when missing, else only
 * touched; answers its id.
 */
export async function upsertTeamConnector(
  db: SqlExecutor,
  teamId: number,
  slug: 'googledrive' | 'wiki',
  name: string,
): Promise<number> {
  const { rows } = await db.executeSql<{ id: number | string }>(
    `INSERT INTO connectors (team_id, slug, name, status) VALUES ($1, $2, $3, 'active')
     ON CONFLICT (team_id, slug) WHERE slug in ('wiki', 'googledrive') DO UPDATE SET updated_at = now()
     RETURNING id`,
    [teamId, slug, name],
  );
  return Number(rows[0]?.id);
}

export interface WikiConnectorWrite {
  readonly teamId: number;
  readonly name: string;
  readonly config: Record<string, unknown>;
  readonly secretsSealed: string;
}

/**
 * Saves the team's one wiki connector (`configured`), replacing the name, configuration and
 * secrets of the one it had; answers its id and whether it was created.
 */
export async function upsertWikiConnector(
  db: SqlExecutor,
  write: WikiConnectorWrite,
): Promise<{ readonly id: number; readonly created: boolean }> {
  const { rows } = await db.executeSql<{ id: number | string; inserted: boolean }>(
    `INSERT INTO connectors (team_id, slug, name, status, config, secrets_sealed)
     VALUES ($1, 'wiki', $2, 'configured', $3::jsonb, $4)
     ON CONFLICT (team_id, slug) WHERE slug in ('wiki', 'googledrive') DO UPDATE SET
       name = excluded.name, status = excluded.status, config = excluded.config,
       secrets_sealed = excluded.secrets_sealed, updated_at = now()
     RETURNING id, (xmax = 0) AS inserted`,
    [write.teamId, write.name, JSON.stringify(write.config), write.secretsSealed],
  );
  const row = rows[0];
  if (row === undefined) throw new Error('Wiki connector upsert returned nothing');
  return { id: Number(row.id), created: row.inserted === true };
}

/** A wiki connector due a sync, and its team. */
export interface DueWikiConnector {
  readonly id: number;
  readonly teamId: number;
}

/**
 * Up to 100 wiki connectors (with credentials) not synced for `intervalMinutes`, with no job of
 * theirs queued, running or created within that interval; oldest first.
 */
export async function listWikiConnectorsDueSync(
  db: SqlExecutor,
  intervalMinutes: number,
): Promise<DueWikiConnector[]> {
  const { rows } = await db.executeSql<{ id: number | string; team_id: number | string }>(
    `SELECT c.id, c.team_id FROM connectors c
     WHERE c.slug = 'wiki' AND c.secrets_sealed IS NOT NULL
       AND COALESCE(c.last_synced_at, c.updated_at) < now() - $1::int * interval '1 minute'
       AND NOT EXISTS (SELECT 1 FROM index_jobs j WHERE j.connector_id = c.id
         AND (j.status IN ('queued', 'running') OR j.created_at > now() - $1::int * interval '1 minute'))
     ORDER BY c.id LIMIT 100`,
    [intervalMinutes],
  );
  return rows.map((row) => ({ id: Number(row.id), teamId: Number(row.team_id) }));
}

/** Deletes a team's connector of this slug and id (its documents cascade); false when there was none. */
export async function deleteTeamConnector(
  db: SqlExecutor,
  teamId: number,
  slug: string,
  id: number,
): Promise<boolean> {
  const { rows } = await db.executeSql<{ id: number }>(
    'DELETE FROM connectors WHERE id = $1 AND team_id = $2 AND slug = $3 RETURNING id',
    [id, teamId, slug],
  );
  return rows.length > 0;
}

/** The Slack connector of a workspace, whichever team installed it. */
export async function findSlackConnector(
  db: Database,
  slackTeamId: string,
): Promise<{ readonly id: number; readonly teamId: number } | undefined> {
  const [row] = await db
    .select({ id: connectors.id, teamId: connectors.teamId })
    .from(connectors)
    .where(and(eq(connectors.slug, 'chatapp'), eq(connectors.externalId, slackTeamId)))
    .limit(1);
  return row;
}

export interface SlackConnectorWrite {
  readonly teamId: number;
  readonly name: string;
  readonly slackTeamId: string;
  readonly config: Record<string, unknown>;
  readonly secretsSealed: string;
}

/** Creates a team's Slack connector for a workspace; answers its id. */
export async function insertSlackConnector(db: Database, write: SlackConnectorWrite): Promise<number> {
  const [created] = await db
    .insert(connectors)
    .values({
      teamId: write.teamId,
      slug: 'chatapp',
      name: write.name,
      externalId: write.slackTeamId,
      config: write.config,
      secretsSealed: write.secretsSealed,
    })
    .returning({ id: connectors.id });
  return created?.id ?? 0;
}

/** Replaces a Slack connector's configuration and sealed bot token, and makes it active again. */
export async function refreshSlackConnector(
  db: Database,
  id: number,
  update: { readonly config: Record<string, unknown>; readonly secretsSealed: string },
): Promise<void> {
  await db
    .update(connectors)
    .set({
      config: update.config,
      secretsSealed: update.secretsSealed,
      status: 'active',
      updatedAt: sql`now()`,
    })
    .where(eq(connectors.id, id));
}

/** A sync of the connector finished: it is active, synced now. */
export async function markConnectorSynced(db: SqlExecutor, connectorId: number): Promise<void> {
  await db.executeSql(
    `UPDATE connectors SET last_synced_at = now(), status = 'active', updated_at = now() WHERE id = $1`,
    [connectorId],
  );
}

/** A team's wiki connector's settings and sealed credentials; undefined once it was deleted. */
export async function findWikiConnectorSecrets(
  db: SqlExecutor,
  teamId: number,
  connectorId: number,
): Promise<{ config: Record<string, string>; secretsSealed: string } | undefined> {
  const { rows } = await db.executeSql<{
    config: Record<string, string> | string;
    secrets_sealed: string | null;
  }>(`SELECT config, secrets_sealed FROM connectors WHERE id = $1 AND team_id = $2 AND slug = 'wiki'`, [
    connectorId,
    teamId,
  ]);
  const row = rows[0];
  if (row === undefined || row.secrets_sealed === null) return undefined;
  // jsonb arrives parsed from PostgreSQL, as text from some drivers' paths.
  const config =
    typeof row.config === 'string' ? (JSON.parse(row.config) as Record<string, string>) : row.config;
  return { config, secretsSealed: row.secrets_sealed };
}

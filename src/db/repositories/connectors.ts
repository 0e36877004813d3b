import type { SqlExecutor } from '../sql-connection.js';

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
  const { rows } = await db.executeSql('SELECT id, slug FROM connectors WHERE team_id = $1 ORDER BY id', [
    teamId,
  ]);
  return rows.map((row) => ({ id: Number(row.id), slug: String(row.slug) }));
}

import type { ServiceDependencies } from './dependencies.js';

/** The team's one connector of this slug (Drive, wiki), created on first use; answers its id. */
export async function ensureTeamConnector(
  deps: ServiceDependencies,
  teamId: number,
  slug: 'googledrive' | 'wiki',
  name: string,
): Promise<number> {
  const { rows } = await deps.sql.executeSql(
    `INSERT INTO connectors (team_id, slug, name, status) VALUES ($1, $2, $3, 'active')
     ON CONFLICT (team_id, slug) WHERE slug in ('wiki', 'googledrive') DO UPDATE SET updated_at = now()
     RETURNING id`,
    [teamId, slug, name],
  );
  return Number(rows[0]?.id);
}

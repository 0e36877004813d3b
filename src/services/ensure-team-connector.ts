import type { ServiceDependencies } from './dependencies.js';

/** The team's one connector of this slug (Drive, wiki), created on first use; answers its id. */
export async function ensureTeamConnector(
  deps: ServiceDependencies,
  teamId: number,
  slug: 'googledrive' | 'wiki',
  name: string,
): Promise<number> {
  return deps.data.connectors.upsertTeamConnector(teamId, slug, name);
}

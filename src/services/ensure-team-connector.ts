import { upsertTeamConnector } from '../db/repositories/connectors.js';
import type { ServiceDependencies } from './dependencies.js';

/** The team's one connector of this slug (Drive, wiki), created on first use; answers its id. */
export async function ensureTeamConnector(
  deps: ServiceDependencies,
  teamId: number,
  slug: 'googledrive' | 'wiki',
  name: string,
): Promise<number> {
  return upsertTeamConnector(deps.sql, teamId, slug, name);
}

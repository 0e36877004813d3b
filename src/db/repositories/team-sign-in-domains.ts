import { and, asc, eq, notInArray } from 'drizzle-orm';
import type { Database } from '../client.js';
import { teamSignInDomains } from '../schema.js';

/** The domains the team claims for single sign-on, in order. */
export async function listTeamSignInDomains(db: Database, teamId: number): Promise<string[]> {
  const rows = await db
    .select({ domain: teamSignInDomains.domain })
    .from(teamSignInDomains)
    .where(eq(teamSignInDomains.teamId, teamId))
    .orderBy(asc(teamSignInDomains.domain));
  return rows.map((row) => row.domain);
}

/** Gives up the team's domains but `keep`. */
export async function releaseTeamSignInDomains(
  db: Database,
  teamId: number,
  keep: readonly string[],
): Promise<void> {
  await db
    .delete(teamSignInDomains)
    .where(
      keep.length === 0
        ? eq(teamSignInDomains.teamId, teamId)
        : and(eq(teamSignInDomains.teamId, teamId), notInArray(teamSignInDomains.domain, [...keep])),
    );
}

/**
 * Claims domains for the team. A domain is its table's primary key: one another team holds fails
 * with a unique violation, also when both claim it at once (the second waits for the first).
 */
export async function claimTeamSignInDomains(
  db: Database,
  teamId: number,
  domains: readonly string[],
): Promise<void> {
  if (domains.length === 0) return;
  await db.insert(teamSignInDomains).values(domains.map((domain) => ({ domain, teamId })));
}

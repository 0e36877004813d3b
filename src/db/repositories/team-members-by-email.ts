import type { SqlExecutor } from '../sql-connection.js';

/** A member of a team, found by an address someone else vouches for (Slack's `users.info`). */
export interface TeamMemberByEmail {
  readonly userId: number;
  readonly teamId: number;
  /** As stored: lower-cased. */
  readonly email: string;
}

/**
 * The active member of this team with this e-mail (compared lower-cased, as users' addresses are
 * stored), if any. A user of another team, or a deactivated one, is no member here.
 */
export async function findTeamMemberByEmail(
  db: SqlExecutor,
  teamId: number,
  email: string,
): Promise<TeamMemberByEmail | undefined> {
  const { rows } = await db.executeSql<{ id: number | string; team_id: number | string; email: string }>(
    'SELECT id, team_id, email FROM users WHERE email = $1 AND team_id = $2 AND is_active LIMIT 1',
    [email.trim().toLowerCase(), teamId],
  );
  const [row] = rows;
  return row === undefined
    ? undefined
    : { userId: Number(row.id), teamId: Number(row.team_id), email: String(row.email) };
}

/** What a member may change in their team: owners and admins manage members and connections. */
export type TeamRole = 'owner' | 'admin' | 'member';

/** A stored role; anything unexpected reads as the least privileged. */
export function teamRoleOf(value: string): TeamRole {
  return value === 'owner' || value === 'admin' ? value : 'member';
}

/**
 * Who is asking: the signed-in user behind a request's token, with their team and role. Every
 * use case is scoped by it; it is resolved once per request (http/auth.ts) and never taken from a
 * body.
 */
export interface Caller {
  readonly userId: number;
  readonly teamId: number;
  readonly email: string;
  /** Whether the address is proven (see register-user.ts): only a proven one counts in access lists. */
  readonly emailVerified: boolean;
  readonly role: TeamRole;
  readonly tokenHash: string;
  /**
   * The group addresses the team's directory (SCIM groups) puts the caller in: they match
   * documents shared with those groups. Absent or empty: none.
   */
  readonly groups?: readonly string[];
}

/** Owners and admins manage the team: members, invitations, connections, others' documents. */
export function managesTeam(caller: Pick<Caller, 'role'>): boolean {
  return caller.role === 'owner' || caller.role === 'admin';
}

/** What a member may change in their team: owners and admins manage members and connections. */
export type TeamRole = 'owner' | 'admin' | 'member';

/** A stored role; anything unexpected reads as the least privileged. */
export function teamRoleOf(value: string): TeamRole {
  return value === 'owner' || value === 'admin' ? value : 'member';
}

/**
 * What kind of bearer token a request came with: a sign-in's session, a personal access token, or
 * an MCP client's OAuth access token (good for /mcp only: its audience).
 */
export type TokenKind = 'session' | 'personal' | 'oauth';

/** A stored kind; anything unexpected reads as the most restricted. */
export function tokenKindOf(value: string): TokenKind {
  return value === 'session' || value === 'personal' ? value : 'oauth';
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
  /** Absent: a session (tests and internal callers build callers without one). */
  readonly tokenKind?: TokenKind;
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

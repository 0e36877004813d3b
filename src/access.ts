import { createHash } from 'node:crypto';

/**
 * Who may open a document, as its source says (Drive permissions, Confluence read restrictions,
 * an upload's visibility). Stored once per distinct list in a team (`access_lists`).
 */
export interface DocumentAccess {
  /** Everyone in the team. */
  readonly team: boolean;
  /** Lower-cased addresses of people who may open it: they count only for a proven address. */
  readonly emails: readonly string[];
  /** Members whose proven e-mail is in one of these domains (Drive's discoverable domain shares). */
  readonly domains: readonly string[];
  /** Group addresses: they match a member only through a known group membership. */
  readonly groups: readonly string[];
  /**
   * Accounts (user ids) that may open it whether or not their address is proven: whoever posted a
   * private upload, and the member whose Drive token read the file. Absent: none.
   */
  readonly users?: readonly number[];
}

/**
 * Who reads what a search or an answer returns. A member reads as their account, with their
 * e-mail and its domain once the address is proven (`email` is null until then: an address anyone
 * could have registered grants nothing), and the groups a directory knows them in (none without
 * one); a reader with neither user nor e-mail is an audience only known to be in the team (a Slack
 * channel, a Slack user who is not a member), which reads team-wide documents alone.
 */
export interface Reader {
  readonly teamId: number;
  /** The member reading, when one is: lists naming their account, and jobs they asked for. */
  readonly userId: number | null;
  /** The member's proven address; null when unproven, or when no one in particular reads. */
  readonly email: string | null;
  readonly groups: readonly string[];
}

/** A member as a reader: their address counts only once proven (`emailVerified`). */
export function memberReader(member: {
  readonly teamId: number;
  readonly email: string;
  readonly emailVerified: boolean;
  readonly userId?: number | undefined;
  readonly groups?: readonly string[] | undefined;
}): Reader {
  return {
    teamId: member.teamId,
    userId: member.userId ?? null,
    email: member.emailVerified ? member.email.toLowerCase() : null,
    // A directory's groups count like the address: only for a member whose address is proven.
    groups: member.emailVerified ? (member.groups ?? []) : [],
  };
}

/** Everyone in the team, and no one in particular: team-wide documents only. */
export function teamReader(teamId: number): Reader {
  return { teamId, userId: null, email: null, groups: [] };
}

/** The part after the last `@`, lower-cased; empty when there is none. */
export function emailDomain(email: string): string {
  const at = email.lastIndexOf('@');
  return at < 0 ? '' : email.slice(at + 1).toLowerCase();
}

/** The same list whatever order or case the source gave: sorted, distinct, lower-cased. */
export function normalizeAccess(access: DocumentAccess): DocumentAccess {
  const clean = (values: readonly string[]) =>
    [...new Set(values.map((value) => value.trim().toLowerCase()).filter((value) => value !== ''))].sort();
  const users = [...new Set(access.users ?? [])].sort((a, b) => a - b);
  return {
    team: access.team,
    emails: clean(access.emails),
    domains: clean(access.domains),
    groups: clean(access.groups),
    ...(users.length === 0 ? {} : { users }),
  };
}

/** The team-wide list (unrestricted pages, team uploads, Drive files shared with anyone). */
export const TEAM_ACCESS: DocumentAccess = { team: true, emails: [], domains: [], groups: [] };

/** Only these people (a Drive file whose permissions could not be read: its indexing member). */
export function peopleAccess(...emails: readonly string[]): DocumentAccess {
  return normalizeAccess({ team: false, emails, domains: [], groups: [] });
}

/** Only this account: a private upload, shown with its poster's address. */
export function accountAccess(userId: number, email: string | null): DocumentAccess {
  return normalizeAccess({
    team: false,
    emails: email === null ? [] : [email],
    domains: [],
    groups: [],
    users: [userId],
  });
}

/**
 * The list's identity within a team: sha256 of its normalised JSON. Migration 0006 writes the
 * same text for the lists it creates, and 0008 for lists naming accounts, so keep the key order;
 * `users` is written only when there are any, so lists without them kept their fingerprints.
 */
export function accessFingerprint(access: DocumentAccess): string {
  const { team, emails, domains, groups, users } = normalizeAccess(access);
  const identity =
    users === undefined ? { team, emails, domains, groups } : { team, emails, domains, groups, users };
  return createHash('sha256').update(JSON.stringify(identity)).digest('hex');
}

/** Whether the reader may open a document with this list (the SQL filter's rule, for tests and views). */
export function readerMayOpen(reader: Reader, access: DocumentAccess): boolean {
  if (access.team) return true;
  if (reader.userId !== null && (access.users ?? []).includes(reader.userId)) return true;
  if (reader.email === null) return false;
  const email = reader.email.toLowerCase();
  return (
    access.emails.includes(email) ||
    access.domains.includes(emailDomain(email)) ||
    reader.groups.some((group) => access.groups.includes(group.toLowerCase()))
  );
}

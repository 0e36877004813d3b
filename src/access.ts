import { createHash } from 'node:crypto';

/**
 * Who may open a document, as its source says (Drive permissions, Confluence read restrictions,
 * an upload's visibility). Stored once per distinct list in a team (`access_lists`).
 */
export interface DocumentAccess {
  /** Everyone in the team. */
  readonly team: boolean;
  /** Lower-cased addresses of people who may open it (the indexing user always among them). */
  readonly emails: readonly string[];
  /** Members whose e-mail is in one of these domains (Drive's discoverable domain shares). */
  readonly domains: readonly string[];
  /** Group addresses: they match a member only through a known group membership. */
  readonly groups: readonly string[];
}

/**
 * Who reads what a search or an answer returns. A member reads with their e-mail, its domain and
 * the groups a directory knows them in (none without one); `email: null` is an audience that is
 * only known to be in the team (a Slack channel, a Slack user who is not a member), which reads
 * team-wide documents alone.
 */
export interface Reader {
  readonly teamId: number;
  /** The member reading, when one is: jobs they asked for show all their files. */
  readonly userId: number | null;
  readonly email: string | null;
  readonly groups: readonly string[];
}

/** A signed-in member as a reader. */
export function memberReader(member: {
  readonly teamId: number;
  readonly email: string;
  readonly userId?: number | undefined;
}): Reader {
  return {
    teamId: member.teamId,
    userId: member.userId ?? null,
    email: member.email.toLowerCase(),
    groups: [],
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
  return {
    team: access.team,
    emails: clean(access.emails),
    domains: clean(access.domains),
    groups: clean(access.groups),
  };
}

/** The team-wide list (unrestricted pages, team uploads, Drive files shared with anyone). */
export const TEAM_ACCESS: DocumentAccess = { team: true, emails: [], domains: [], groups: [] };

/** Only these people (a private upload, a Drive file whose permissions could not be read). */
export function peopleAccess(...emails: readonly string[]): DocumentAccess {
  return normalizeAccess({ team: false, emails, domains: [], groups: [] });
}

/**
 * The list's identity within a team: sha256 of its normalised JSON. Migration 0006 writes the
 * same text for the lists it creates, so keep the key order.
 */
export function accessFingerprint(access: DocumentAccess): string {
  const { team, emails, domains, groups } = normalizeAccess(access);
  return createHash('sha256').update(JSON.stringify({ team, emails, domains, groups })).digest('hex');
}

/** Whether the reader may open a document with this list (the SQL filter's rule, for tests and views). */
export function readerMayOpen(reader: Reader, access: DocumentAccess): boolean {
  if (access.team) return true;
  if (reader.email === null) return false;
  const email = reader.email.toLowerCase();
  return (
    access.emails.includes(email) ||
    access.domains.includes(emailDomain(email)) ||
    reader.groups.some((group) => access.groups.includes(group.toLowerCase()))
  );
}

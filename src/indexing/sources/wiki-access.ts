import { type DocumentAccess, normalizeAccess, TEAM_ACCESS } from '../../access.js';
import type { WikiReadRestriction } from '../../adapters/wiki/wiki-client.js';

/**
 * Who may open a Confluence page, from its read restriction and its ancestors'
 * (`WikiClient.getReadRestrictions`). No level restricted: the whole team (space permissions are
 * not ours to check). Otherwise a reader must pass every restricted level, and the access list
 * can only say "one of these e-mails, or a member of one of these groups": so it holds the e-mails
 * named at every restricted level and the groups named at every restricted level. Someone who
 * passes one level by name and another through a group is left out (fail closed: the list never
 * lets in anyone the wiki would not). Users whose e-mail the wiki hides restrict but match no one.
 */
export function wikiPageAccess(levels: readonly WikiReadRestriction[]): DocumentAccess {
  const restricted = levels.filter((level) => level.users.length > 0 || level.groups.length > 0);
  if (restricted.length === 0) return TEAM_ACCESS;
  const emails = restricted.map((level) =>
    lowerCased(level.users.flatMap((user) => (user.email === undefined ? [] : [user.email]))),
  );
  const groups = restricted.map((level) => lowerCased(level.groups));
  return normalizeAccess({ team: false, emails: inEvery(emails), domains: [], groups: inEvery(groups) });
}

function lowerCased(values: readonly string[]): Set<string> {
  return new Set(values.map((value) => value.trim().toLowerCase()).filter((value) => value !== ''));
}

/** The values every set has. */
function inEvery(sets: readonly Set<string>[]): string[] {
  const [first, ...rest] = sets;
  if (first === undefined) return [];
  return [...first].filter((value) => rest.every((set) => set.has(value)));
}

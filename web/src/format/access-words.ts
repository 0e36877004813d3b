import type { DocumentAccess } from '../api/types';

/** How many people a short description names before "and N more". */
export const PEOPLE_SHOWN = 2;

/**
 * Who may open a document, in words, for the signed-in member `viewerEmail`: "Everyone in the team";
 * else the people (the viewer as "you", first; up to `peopleShown` named, then "and N more"), the
 * domains ("anyone at corp.example") and the groups ("group everyone@corp.example"); "only you"
 * when the viewer alone may open it.
 */
export function accessWords(
  access: DocumentAccess,
  viewerEmail: string | undefined,
  peopleShown: number = PEOPLE_SHOWN,
): string {
  if (access.team) return 'Everyone in the team';
  const viewer = viewerEmail?.trim().toLowerCase();
  const emails = [...new Set(access.emails.map((email) => email.trim().toLowerCase()))].filter(
    (email) => email !== '',
  );
  const includesViewer = viewer !== undefined && viewer !== '' && emails.includes(viewer);
  const others = includesViewer ? emails.filter((email) => email !== viewer) : emails;
  const domains = access.domains.filter((domain) => domain.trim() !== '');
  const groups = access.groups.filter((group) => group.trim() !== '');
  if (includesViewer && others.length === 0 && domains.length === 0 && groups.length === 0) return 'only you';

  const people = includesViewer ? ['you', ...others] : others;
  const parts: string[] = [];
  if (people.length > 0) {
    const shown = Math.max(1, peopleShown);
    const named = people.slice(0, shown).join(', ');
    const more = people.length - shown;
    parts.push(more > 0 ? `${named} and ${more} more` : named);
  }
  for (const domain of domains) parts.push(`anyone at ${domain}`);
  for (const group of groups) parts.push(`group ${group}`);
  return parts.length === 0 ? 'no one' : parts.join(', ');
}

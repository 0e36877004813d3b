import { type DocumentAccess, normalizeAccess } from '../../access.js';
import type { DrivePermission } from '../../adapters/google-drive/google-drive.js';

/**
 * Who may open a Drive file, from its permissions (issue 15):
 * - a `user` grant: that e-mail;
 * - a `group` grant: that group's e-mail, among `groups` (it matches a member only through a
 *   known group membership);
 * - a discoverable `domain` grant: that domain (every member whose e-mail is in it);
 * - a discoverable `anyone` grant: the whole team;
 * - a link-only `domain` or `anyone` grant (`allowFileDiscovery` false or not said): nothing;
 * - the indexing user always, since their token read the file: their address, and their account
 *   (`indexingUserId`), which opens it even before they prove the address to this service;
 * - permissions that could not be read (`undefined`): the indexing user alone, never everyone.
 *
 * Roles do not matter: every role, `reader` included, may open the file. Sorted, distinct and
 * lower-cased (`normalizeAccess`). With neither permissions nor an indexing user, nobody.
 */
export function driveAccess(
  permissions: readonly DrivePermission[] | undefined,
  indexingUserEmail: string | null,
  indexingUserId: number | null = null,
): DocumentAccess {
  const emails: string[] = indexingUserEmail === null ? [] : [indexingUserEmail];
  const domains: string[] = [];
  const groups: string[] = [];
  let team = false;
  for (const permission of permissions ?? []) {
    switch (permission.type) {
      case 'user':
        if (permission.emailAddress !== undefined) emails.push(permission.emailAddress);
        break;
      case 'group':
        if (permission.emailAddress !== undefined) groups.push(permission.emailAddress);
        break;
      case 'domain':
        if (permission.allowFileDiscovery === true && permission.domain !== undefined) {
          domains.push(permission.domain);
        }
        break;
      case 'anyone':
        if (permission.allowFileDiscovery === true) team = true;
        break;
    }
  }
  return normalizeAccess({
    team,
    emails,
    domains,
    groups,
    ...(indexingUserId === null ? {} : { users: [indexingUserId] }),
  });
}

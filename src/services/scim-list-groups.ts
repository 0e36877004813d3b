import type { ServiceDependencies } from './dependencies.js';
import type { ScimClient } from './scim-authenticate.js';
import { parseScimFilter } from './scim-filter.js';
import {
  excludes,
  type ScimListQuery,
  scimBaseUrl,
  scimGroupResource,
  scimListResponse,
  scimPage,
} from './scim-resources.js';

/**
 * The team's groups (GET /Groups), oldest first, a page at a time, with their members unless
 * `excludedAttributes=members` (Entra ID's); `filter` is `displayName eq "…"` or `externalId eq "…"`.
 */
export async function scimListGroups(deps: ServiceDependencies, client: ScimClient, query: ScimListQuery) {
  const filter = parseScimFilter(query.filter, ['displayName', 'externalId'] as const);
  const page = scimPage(query);
  const { total, rows } = await deps.data.scim.listScimGroups(client.teamId, filter, page);
  const members = excludes(query.excludedAttributes, 'members')
    ? undefined
    : await deps.data.scim.listScimGroupMembers(rows.map((row) => row.id));
  const baseUrl = scimBaseUrl(deps.config.publicUrl);
  return scimListResponse(
    rows.map((row) =>
      scimGroupResource(
        row,
        members?.filter((member) => member.groupId === row.id),
        baseUrl,
      ),
    ),
    total,
    page.startIndex,
  );
}

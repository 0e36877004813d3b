import type { ServiceDependencies } from './dependencies.js';
import type { ScimClient } from './scim-authenticate.js';
import { parseScimFilter } from './scim-filter.js';
import {
  type ScimListQuery,
  scimBaseUrl,
  scimListResponse,
  scimPage,
  scimUserResource,
} from './scim-resources.js';

/**
 * The team's provisioned people (GET /Users), oldest first, a page at a time; `filter` is
 * `userName eq "…"` (how a directory looks for someone before creating them; the address in any
 * case) or `externalId eq "…"`.
 */
export async function scimListUsers(deps: ServiceDependencies, client: ScimClient, query: ScimListQuery) {
  const filter = parseScimFilter(query.filter, ['userName', 'externalId'] as const);
  const page = scimPage(query);
  const { total, rows } = await deps.data.scim.listScimUsers(client.teamId, filter, page);
  const baseUrl = scimBaseUrl(deps.config.publicUrl);
  return scimListResponse(
    rows.map((row) => scimUserResource(row, baseUrl)),
    total,
    page.startIndex,
  );
}

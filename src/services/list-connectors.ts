import { memberReader } from '../access.js';
import type { Caller } from '../caller.js';
import type { ServiceDependencies } from './dependencies.js';
import { canonicalSlug, type connectorView, findConnectorView } from './get-connector.js';

/**
 * `GET /v1/connectors`: the caller's team's connectors, oldest first, each as
 * `GET /v1/connectors/{slug}/{id}` shows it (non-secret settings only). A client finds its
 * connectors' ids here. One dropped meanwhile is left out. `wiki_base_url_configured` says whether
 * the server has a wiki address of its own, which a wiki connector saved without one uses: a form
 * asks for the address only when it has none (the address itself stays with the server).
 */
export async function listConnectors(
  deps: ServiceDependencies,
  caller: Caller,
): Promise<{ connectors: ReturnType<typeof connectorView>[]; wiki_base_url_configured: boolean }> {
  const refs = await deps.data.connectors.listTeamConnectorRefs(caller.teamId);
  const connectors: ReturnType<typeof connectorView>[] = [];
  // One after another: a few connectors, and PGlite's one connection is shared with requests.
  for (const ref of refs) {
    const slug = canonicalSlug(ref.slug);
    if (slug === undefined) continue;
    const view = await findConnectorView(deps, memberReader(caller), slug, ref.id);
    if (view !== undefined) connectors.push(view);
  }
  return { connectors, wiki_base_url_configured: deps.config.wikiBaseUrl !== undefined };
}

import { sql } from 'drizzle-orm';
import { queryRows } from '../db/client.js';
import type { Caller } from '../db/repositories/users.js';
import { connectors } from '../db/schema.js';
import { ServiceError } from '../errors.js';
import type { ServiceDependencies } from './dependencies.js';
import { type connectorView, findConnectorView } from './get-connector.js';

export interface WikiConfigInput {
  wikiApiToken: string;
  wikiUsername: string;
  wikiSpaceKey: string;
  wikiBaseUrl?: string | null;
}

/** Confluence Cloud lives under `…/wiki` on atlassian.net and takes e-mail + API token (basic auth); Data Center takes a personal access token (bearer). */
export function wikiAuthScheme(baseUrl: string): 'basic' | 'bearer' {
  const url = new URL(baseUrl);
  return url.hostname.endsWith('.atlassian.net') || url.pathname.replace(/\/+$/, '').endsWith('/wiki')
    ? 'basic'
    : 'bearer';
}

/** Saves (or replaces) the team's one wiki connector; the API token is stored encrypted. */
export async function saveWikiConfig(
  deps: ServiceDependencies,
  caller: Caller,
  input: WikiConfigInput,
): Promise<{ created: boolean; connector: ReturnType<typeof connectorView> }> {
  const baseUrl = (input.wikiBaseUrl ?? deps.config.wikiBaseUrl)?.replace(/\/+$/, '');
  if (baseUrl === undefined || baseUrl === '') {
    throw ServiceError.validation([
      {
        type: 'missing',
        loc: ['body', 'wikiBaseUrl'],
        msg: 'Field required: this server has no WIKI_BASE_URL, so give the wiki site address',
      },
    ]);
  }
  const config = {
    base_url: baseUrl,
    username: input.wikiUsername,
    space_key: input.wikiSpaceKey,
    auth_scheme: wikiAuthScheme(baseUrl),
  };
  const secretsSealed = deps.secrets.sealJson({ api_token: input.wikiApiToken });
  const [row] = await queryRows<Record<string, unknown>>(
    deps.db,
    sql`
    INSERT INTO ${connectors} (team_id, slug, name, status, config, secrets_sealed)
    VALUES (${caller.teamId}, 'wiki', ${`Confluence space ${input.wikiSpaceKey}`}, 'configured',
            ${JSON.stringify(config)}::jsonb, ${secretsSealed})
    ON CONFLICT (team_id, slug) WHERE slug in ('wiki', 'googledrive') DO UPDATE SET
      name = excluded.name, status = excluded.status, config = excluded.config,
      secrets_sealed = excluded.secrets_sealed, updated_at = now()
    RETURNING id, (xmax = 0) AS inserted`,
  );
  if (row === undefined) throw new Error('Wiki connector upsert returned nothing');
  const connector = await findConnectorView(deps, caller.teamId, 'wiki', Number(row.id));
  if (connector === undefined) throw new Error('Wiki connector vanished after saving');
  return { created: row.inserted === true, connector };
}

import { memberReader } from '../access.js';
import { SourceError } from '../adapters/source-error.js';
import type { WikiSite } from '../adapters/wiki/wiki-client.js';
import { type Caller, managesTeam } from '../caller.js';
import { ServiceError } from '../errors.js';
import type { ServiceDependencies } from './dependencies.js';
import { type connectorView, findConnectorView } from './get-connector.js';
import { type QueuedIndexJob, queueWikiSync } from './sync-wiki.js';

export interface WikiConfigInput {
  wikiApiToken: string;
  wikiUsername: string;
  wikiSpaceKey: string;
  wikiBaseUrl?: string | null;
}

/**
 * How to sign wiki requests. Without a username it is a Data Center personal access token
 * (bearer), whatever the address. With one, a Cloud address (`*.atlassian.net`, or a site under
 * `…/wiki`) takes e-mail + API token as basic auth; any other address is Data Center, where the
 * token is a personal access token (bearer) and the username is not needed.
 */
export function wikiAuthScheme(baseUrl: string, username: string): 'basic' | 'bearer' {
  if (username.trim() === '') return 'bearer';
  const url = new URL(baseUrl);
  return isAtlassianCloud(url) || url.pathname.replace(/\/+$/, '').endsWith('/wiki') ? 'basic' : 'bearer';
}

/**
 * The wiki's API base without a trailing slash. Confluence Cloud's REST API always lives at
 * `https://<site>.atlassian.net/wiki/rest/api`, so a Cloud address given as the bare site (or any
 * page of it) becomes `<origin>/wiki`.
 */
export function wikiApiBase(baseUrl: string): string {
  const trimmed = baseUrl.replace(/\/+$/, '');
  const url = new URL(trimmed);
  return isAtlassianCloud(url) ? `${url.origin}/wiki` : trimmed;
}

function isAtlassianCloud(url: URL): boolean {
  return url.hostname.endsWith('.atlassian.net');
}

/**
 * Checks the credentials and the space against the wiki, then saves (or replaces) the team's one
 * wiki connector, its API token encrypted, and queues the first sync of the space. Rejected
 * credentials, an unknown space or a refused address save nothing. Owners and admins only.
 */
export async function saveWikiConfig(
  deps: ServiceDependencies,
  caller: Caller,
  input: WikiConfigInput,
): Promise<{ created: boolean; connector: ReturnType<typeof connectorView>; sync: QueuedIndexJob }> {
  if (!managesTeam(caller)) {
    throw new ServiceError(
      'forbidden',
      "Only the team's owner and admins may change the Confluence connection",
    );
  }
  const given = (input.wikiBaseUrl ?? deps.config.wikiBaseUrl)?.replace(/\/+$/, '');
  if (given === undefined || given === '') {
    throw ServiceError.validation([
      {
        type: 'missing',
        loc: ['body', 'wikiBaseUrl'],
        msg: 'Field required: this server has no WIKI_BASE_URL, so give the wiki site address',
      },
    ]);
  }
  const baseUrl = wikiApiBase(given);
  const site: WikiSite = {
    baseUrl,
    authScheme: wikiAuthScheme(baseUrl, input.wikiUsername),
    username: input.wikiUsername,
    apiToken: input.wikiApiToken,
  };
  await checkWikiAccess(deps, site, input.wikiSpaceKey);
  const config = {
    base_url: baseUrl,
    username: input.wikiUsername,
    space_key: input.wikiSpaceKey,
    auth_scheme: site.authScheme,
  };
  const secretsSealed = deps.secrets.sealJson({ api_token: input.wikiApiToken });
  const saved = await deps.data.connectors.upsertWikiConnector({
    teamId: caller.teamId,
    name: `Confluence space ${input.wikiSpaceKey}`,
    config,
    secretsSealed,
  });
  const sync = await queueWikiSync(deps, caller, saved.id);
  const connector = await findConnectorView(deps, memberReader(caller), 'wiki', saved.id);
  if (connector === undefined) throw new Error('Wiki connector vanished after saving');
  return { created: saved.created, connector, sync };
}

/** Asks the wiki for the space with these credentials; every refusal becomes a clear 4xx. */
async function checkWikiAccess(deps: ServiceDependencies, site: WikiSite, spaceKey: string): Promise<void> {
  try {
    await deps.wiki.getSpace(site, spaceKey);
  } catch (error) {
    if (!(error instanceof SourceError)) throw error;
    const at = `the wiki at ${site.baseUrl}`;
    switch (error.failure) {
      case 'unauthorized':
        throw new ServiceError(
          'bad_request',
          `Wiki credentials rejected: ${at} answered 401. Check wikiUsername (the account's e-mail on Confluence Cloud) and wikiApiToken.`,
        );
      case 'permission_denied':
        throw new ServiceError(
          'bad_request',
          `Wiki space not accessible: ${at} refused these credentials access to space "${spaceKey}".`,
        );
      case 'not_found':
        throw new ServiceError(
          'bad_request',
          `Wiki space not found: ${at} has no space "${spaceKey}" that these credentials can see.`,
        );
      case 'refused':
        throw new ServiceError('bad_request', `Wiki address not allowed. ${error.message}`);
      case 'bad_response':
        throw new ServiceError('bad_request', `The wiki's answer was not usable: ${error.message}`);
      default:
        throw new ServiceError('bad_gateway', `The wiki did not answer: ${error.message}`);
    }
  }
}

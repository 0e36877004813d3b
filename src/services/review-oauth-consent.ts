import type { Caller } from '../caller.js';
import { ServiceError } from '../errors.js';
import type { ServiceDependencies } from './dependencies.js';
import { type AuthorizationParameters, checkAuthorizationRequest } from './oauth-authorization-request.js';
import { MCP_SCOPE_ABILITIES } from './oauth-policy.js';

/** What the consent page shows: who asks, for what, and where the answer goes. */
export interface OAuthConsentView {
  readonly client_id: string;
  /** The name the client registered itself with: its own claim, not vouched for. */
  readonly client_name: string;
  readonly client_uri: string | null;
  readonly redirect_uri: string;
  /** The redirect URI's host (with its port): where the browser goes after the decision. */
  readonly redirect_host: string;
  readonly scope: string;
  /** What the client may do, in sentences. */
  readonly abilities: string[];
  /** Who the client will act as. */
  readonly signed_in_as: string;
}

/**
 * The consent page's content for an authorization request (GET /oauth/authorize sends the
 * browser there). A request that cannot be shown is 400 with why; the page says so.
 */
export async function reviewOAuthConsent(
  deps: Pick<ServiceDependencies, 'data' | 'config'>,
  caller: Caller,
  parameters: AuthorizationParameters,
): Promise<OAuthConsentView> {
  const checked = await checkAuthorizationRequest(deps, parameters);
  if (checked.kind !== 'valid') throw new ServiceError('bad_request', checked.description);
  const { client, redirectUri, scope } = checked.request;
  return {
    client_id: client.id,
    client_name: client.name,
    client_uri: client.clientUri,
    redirect_uri: redirectUri,
    redirect_host: new URL(redirectUri).host,
    scope,
    abilities: [...MCP_SCOPE_ABILITIES],
    signed_in_as: caller.email,
  };
}

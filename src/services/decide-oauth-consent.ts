import type { Caller } from '../caller.js';
import { ServiceError } from '../errors.js';
import { hashAccessToken } from '../security/access-tokens.js';
import type { ServiceDependencies } from './dependencies.js';
import {
  type AuthorizationParameters,
  authorizationResponse,
  checkAuthorizationRequest,
} from './oauth-authorization-request.js';
import { AUTHORIZATION_CODE_TTL_SECONDS, generateOAuthSecret } from './oauth-policy.js';

/** Where the browser goes next: the client's redirect URI with `code` (Allow) or `error` (Deny). */
export interface OAuthConsentDecision {
  readonly redirect_to: string;
}

/**
 * The person's answer on the consent page. Allow: a one-use code (five minutes) bound to the
 * client, its redirect URI and PKCE challenge, for the caller; Deny: `error=access_denied`. Both
 * carry the request's `state` back. A request that is not valid any more is 400 with why.
 */
export async function decideOAuthConsent(
  deps: Pick<ServiceDependencies, 'data' | 'config' | 'now'>,
  caller: Caller,
  parameters: AuthorizationParameters,
  allow: boolean,
): Promise<OAuthConsentDecision> {
  const checked = await checkAuthorizationRequest(deps, parameters);
  if (checked.kind === 'invalid') throw new ServiceError('bad_request', checked.description);
  if (checked.kind === 'client-error') return { redirect_to: checked.redirectTo };
  const { request } = checked;
  const issuer = deps.config.publicUrl;
  if (!allow) {
    return {
      redirect_to: authorizationResponse(issuer, request.redirectUri, request.state, {
        error: 'access_denied',
        error_description: 'The person declined to connect this application',
      }),
    };
  }
  const code = generateOAuthSecret('kac_');
  await deps.data.oauth.insertAuthorizationCode({
    codeHash: hashAccessToken(code),
    clientId: request.client.id,
    userId: caller.userId,
    redirectUri: request.redirectUri,
    codeChallenge: request.codeChallenge,
    scope: request.scope,
    resource: request.resource,
    expiresAt: new Date(deps.now().getTime() + AUTHORIZATION_CODE_TTL_SECONDS * 1000),
  });
  return { redirect_to: authorizationResponse(issuer, request.redirectUri, request.state, { code }) };
}

import { hashAccessToken } from '../security/access-tokens.js';
import type { ServiceDependencies } from './dependencies.js';
import { OAuthError } from './oauth-error.js';

/** A revocation request's form fields (RFC 7009 2.1), as sent. */
export interface RevocationRequest {
  readonly token?: string;
  readonly token_type_hint?: string;
  readonly client_id?: string;
}

/**
 * Revokes a client's token (RFC 7009): a refresh token ends the whole connection (its grant and
 * every token it gave), an access token only itself. A token that is unknown, already revoked
 * or another client's changes nothing and is answered the same (200), so the endpoint tells
 * nobody which tokens exist.
 */
export async function revokeOAuthToken(
  deps: Pick<ServiceDependencies, 'data' | 'callers'>,
  request: RevocationRequest,
): Promise<void> {
  const { token, client_id: clientId } = request;
  if (token === undefined || token === '') throw new OAuthError('invalid_request', 'token is required');
  if (clientId === undefined || clientId === '')
    throw new OAuthError('invalid_request', 'client_id is required');
  const tokenHash = hashAccessToken(token);
  const refreshGrant = await deps.data.oauth.findRefreshTokenGrant(tokenHash);
  if (refreshGrant !== undefined) {
    if (refreshGrant.clientId !== clientId.toLowerCase()) return;
    const revoked = await deps.data.oauth.deleteGrant(refreshGrant.grantId);
    for (const hash of revoked ?? []) deps.callers.forget(hash);
    return;
  }
  const accessGrant = await deps.data.oauth.findAccessTokenGrant(tokenHash);
  if (accessGrant === undefined || accessGrant.clientId !== clientId.toLowerCase()) return;
  await deps.data.accessTokens.deleteAccessToken(tokenHash);
  deps.callers.forget(tokenHash);
}

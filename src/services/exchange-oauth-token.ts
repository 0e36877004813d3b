import { randomUUID } from 'node:crypto';
import type { Repositories } from '../db/repositories.js';
import { generateAccessToken, hashAccessToken, secretsEqual } from '../security/access-tokens.js';
import { isUuid } from '../uuid.js';
import type { ServiceDependencies } from './dependencies.js';
import { OAuthError } from './oauth-error.js';
import {
  ACCESS_TOKEN_TTL_SECONDS,
  generateOAuthSecret,
  isMcpResource,
  PKCE_VALUE,
  pkceChallengeOf,
  REFRESH_TOKEN_TTL_SECONDS,
} from './oauth-policy.js';

/** A token request's form fields (RFC 6749 4.1.3 and 6), as sent. */
export interface TokenRequest {
  readonly grant_type?: string;
  readonly client_id?: string;
  readonly code?: string;
  readonly redirect_uri?: string;
  readonly code_verifier?: string;
  readonly refresh_token?: string;
  readonly resource?: string;
}

/** RFC 6749 5.1's answer. */
export interface TokenResponse {
  readonly access_token: string;
  readonly token_type: 'Bearer';
  readonly expires_in: number;
  readonly refresh_token: string;
  readonly scope: string;
}

/**
 * The token endpoint: an authorization code (with its PKCE verifier) or a refresh token becomes a
 * one-hour access token and a new refresh token. A code works once; presented again it revokes
 * everything its first exchange gave (RFC 6749 4.1.2), as does a refresh token used twice (the
 * rotation's reuse detection), and the answer is `invalid_grant` either way.
 */
export async function exchangeOAuthToken(
  deps: Pick<ServiceDependencies, 'data' | 'config' | 'now' | 'callers'>,
  request: TokenRequest,
): Promise<TokenResponse> {
  const clientId = required(request, 'client_id');
  const client = isUuid(clientId) ? await deps.data.oauth.findClient(clientId.toLowerCase()) : undefined;
  if (client === undefined) throw new OAuthError('invalid_client', 'Unknown client_id');
  if (request.grant_type === 'authorization_code') return exchangeCode(deps, client.id, request);
  if (request.grant_type === 'refresh_token') return refresh(deps, client.id, request);
  if (request.grant_type === undefined) throw new OAuthError('invalid_request', 'grant_type is required');
  throw new OAuthError('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
}

async function exchangeCode(
  deps: Pick<ServiceDependencies, 'data' | 'config' | 'now' | 'callers'>,
  clientId: string,
  request: TokenRequest,
): Promise<TokenResponse> {
  const code = required(request, 'code');
  const redirectUri = required(request, 'redirect_uri');
  const verifier = required(request, 'code_verifier');
  if (!PKCE_VALUE.test(verifier)) {
    throw new OAuthError('invalid_request', 'code_verifier must be 43 to 128 unreserved characters');
  }
  const codeHash = hashAccessToken(code);
  const outcome = await deps.data.transaction(async (tx) => {
    const now = deps.now();
    const found = await tx.oauth.lockAuthorizationCode(codeHash);
    if (found === undefined) return refusal('The authorization code is not known');
    if (found.usedAt !== null) {
      // A replay: whoever holds the code may have stolen it; the tokens it gave are revoked.
      const revoked = found.grantId === null ? undefined : await tx.oauth.deleteGrant(found.grantId);
      return refusal('The authorization code was already used; the tokens it gave are revoked', revoked);
    }
    if (found.expiresAt <= now) return refusal('The authorization code has expired');
    if (!found.userActive) return refusal('The account that allowed this client is deactivated');
    if (found.clientId !== clientId) return refusal('The authorization code was issued to another client');
    if (found.redirectUri !== redirectUri) {
      return refusal('redirect_uri is not the one the authorization request used');
    }
    if (!secretsEqual(pkceChallengeOf(verifier), found.codeChallenge)) {
      return refusal('code_verifier does not match the code_challenge');
    }
    if (request.resource !== undefined && !isMcpResource(deps.config.publicUrl, request.resource)) {
      throw new OAuthError('invalid_target', `Tokens here are for ${found.resource} only`);
    }
    const grantId = randomUUID();
    await tx.oauth.insertGrant({
      id: grantId,
      userId: found.userId,
      clientId,
      scope: found.scope,
      resource: found.resource,
      now,
    });
    await tx.oauth.markAuthorizationCodeUsed(codeHash, grantId, now);
    const tokens = await issueTokens(tx, { grantId, userId: found.userId, scope: found.scope }, now);
    return { ok: true as const, tokens };
  });
  return settle(deps, outcome);
}

async function refresh(
  deps: Pick<ServiceDependencies, 'data' | 'config' | 'now' | 'callers'>,
  clientId: string,
  request: TokenRequest,
): Promise<TokenResponse> {
  const tokenHash = hashAccessToken(required(request, 'refresh_token'));
  const outcome = await deps.data.transaction(async (tx) => {
    const now = deps.now();
    const found = await tx.oauth.lockRefreshToken(tokenHash);
    if (found === undefined) return refusal('The refresh token is not known or was revoked');
    if (found.clientId !== clientId) return refusal('The refresh token was issued to another client');
    if (found.usedAt !== null) {
      // Rotation's reuse detection: a used refresh token again means two holders; neither keeps it.
      const revoked = await tx.oauth.deleteGrant(found.grantId);
      return refusal('The refresh token was already used; the connection is revoked', revoked);
    }
    if (found.expiresAt <= now) return refusal('The refresh token has expired');
    if (!found.userActive) return refusal('The account that allowed this client is deactivated');
    if (request.resource !== undefined && !isMcpResource(deps.config.publicUrl, request.resource)) {
      throw new OAuthError('invalid_target', `Tokens here are for ${found.resource} only`);
    }
    await tx.oauth.markRefreshTokenUsed(tokenHash, now);
    await tx.oauth.markGrantRefreshed(found.grantId, now);
    const tokens = await issueTokens(tx, found, now);
    return { ok: true as const, tokens };
  });
  return settle(deps, outcome);
}

/** A refusal decided in the transaction, with the access tokens it revoked (committed, then forgotten). */
interface Refusal {
  readonly ok: false;
  readonly description: string;
  readonly revokedTokenHashes: readonly string[];
}

function refusal(description: string, revokedTokenHashes: readonly string[] = []): Refusal {
  return { ok: false, description, revokedTokenHashes };
}

/** Returns the tokens, or, once the transaction has committed any revocation, refuses. */
function settle(
  deps: Pick<ServiceDependencies, 'callers'>,
  outcome: Refusal | { ok: true; tokens: TokenResponse },
): TokenResponse {
  if (outcome.ok) return outcome.tokens;
  for (const hash of outcome.revokedTokenHashes) deps.callers.forget(hash);
  throw new OAuthError('invalid_grant', outcome.description);
}

async function issueTokens(
  tx: Repositories,
  grant: { grantId: string; userId: number; scope: string },
  now: Date,
): Promise<TokenResponse> {
  const accessToken = generateAccessToken();
  const refreshToken = generateOAuthSecret('kar_');
  await tx.oauth.insertGrantAccessToken({
    grantId: grant.grantId,
    userId: grant.userId,
    tokenHash: hashAccessToken(accessToken),
    expiresAt: new Date(now.getTime() + ACCESS_TOKEN_TTL_SECONDS * 1000),
  });
  await tx.oauth.insertRefreshToken({
    grantId: grant.grantId,
    tokenHash: hashAccessToken(refreshToken),
    expiresAt: new Date(now.getTime() + REFRESH_TOKEN_TTL_SECONDS * 1000),
    now,
  });
  return {
    access_token: accessToken,
    token_type: 'Bearer',
    expires_in: ACCESS_TOKEN_TTL_SECONDS,
    refresh_token: refreshToken,
    scope: grant.scope,
  };
}

function required(request: TokenRequest, field: keyof TokenRequest): string {
  const value = request[field];
  if (typeof value !== 'string' || value === '')
    throw new OAuthError('invalid_request', `${field} is required`);
  return value;
}

import { requestJson, requestNothing } from './http';
import type { AccessToken, NewAccessToken } from './types';

/** GET /v1/users/me/tokens: the caller's personal access tokens, without their secrets. */
export async function listAccessTokens(signal?: AbortSignal): Promise<AccessToken[]> {
  const answer = await requestJson<{ tokens: AccessToken[] }>(
    'GET',
    '/v1/users/me/tokens',
    signal === undefined ? {} : { signal },
  );
  return answer.tokens;
}

/** POST /v1/users/me/tokens: a new token (its secret in the answer, once); no `expiresInDays`: it never expires. */
export function createAccessToken(name: string, expiresInDays: number | undefined): Promise<NewAccessToken> {
  const body = expiresInDays === undefined ? { name } : { name, expires_in_days: expiresInDays };
  return requestJson<NewAccessToken>('POST', '/v1/users/me/tokens', { body });
}

/** DELETE /v1/users/me/tokens/{id}: the token stops working at once. */
export function revokeAccessToken(id: number | string): Promise<void> {
  return requestNothing('DELETE', `/v1/users/me/tokens/${encodeURIComponent(String(id))}`);
}

import { ServiceError } from '../../errors.js';
import type { TokenEndpointClient } from './token-endpoint-client.js';

/** What a server needs to trade a stored refresh token at a provider's token endpoint (RFC 6749 §6). */
export interface RefreshTokenGrant {
  /** The provider's token endpoint (https: the client refuses anything else). */
  readonly tokenUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly refreshToken: string;
}

/** A fresh access token; `refreshToken` only when the provider rotated it (the old one is then dead). */
export interface RefreshedAccessToken {
  readonly accessToken: string;
  readonly expiresInSeconds: number | undefined;
  readonly refreshToken: string | undefined;
}

/**
 * Why a refresh failed:
 * - `revoked`: the grant is dead (400 `invalid_grant`: the user removed the app's access, the
 *   token expired or was rotated away); only a new sign-in helps.
 * - `client_refused`: the provider refuses our client credentials (401 `invalid_client`, …): a
 *   configuration problem, the same for every user.
 * - `unavailable`: the endpoint could not be reached, timed out or answered 5xx / 429; a later try may work.
 * - `malformed`: an answer without an access token.
 */
export type RefreshFailureKind = 'revoked' | 'client_refused' | 'unavailable' | 'malformed';

/**
 * A refresh that did not give an access token. Its message carries the status and the provider's
 * error code only: never the tokens, the client secret or the provider's free-text description.
 */
export class AccessTokenRefreshError extends Error {
  constructor(
    readonly kind: RefreshFailureKind,
    message: string,
    /** The provider's `error` code, e.g. `invalid_grant`, when it sent one. */
    readonly providerError: string | undefined,
  ) {
    super(message);
    this.name = 'AccessTokenRefreshError';
  }

  /** Whether trying again later may succeed without the user signing in again. */
  get retryable(): boolean {
    return this.kind === 'unavailable';
  }
}

/** The provider's error codes are short tokens (RFC 6749 §5.2); anything else is not echoed. */
const ERROR_CODE = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * Trades a refresh token for an access token with the `refresh_token` grant, the client's
 * credentials in the form body (Google's `client_secret_post`), through `client` (the guarded
 * HTTPS client: checked addresses, no redirects, bounded time and size). Throws
 * `AccessTokenRefreshError`.
 */
export async function refreshAccessToken(
  client: TokenEndpointClient,
  grant: RefreshTokenGrant,
): Promise<RefreshedAccessToken> {
  const body = new URLSearchParams({
    grant_type: 'refresh_token',
    refresh_token: grant.refreshToken,
    client_id: grant.clientId,
    client_secret: grant.clientSecret,
  }).toString();
  let response: Awaited<ReturnType<TokenEndpointClient['post']>>;
  try {
    response = await client.post({
      url: new URL(grant.tokenUrl),
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
        'user-agent': 'knowledge-answers-drive-sync',
      },
      body,
    });
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    // `forbidden` is an address the guarded client refuses: the operator's setting, not the moment.
    const kind: RefreshFailureKind = error.code === 'forbidden' ? 'client_refused' : 'unavailable';
    throw new AccessTokenRefreshError(
      kind,
      `The token endpoint was not reached: ${error.message}`,
      undefined,
    );
  }
  const answer = parseAnswer(response.body);
  const providerError =
    typeof answer?.error === 'string' && ERROR_CODE.test(answer.error) ? answer.error : undefined;
  if (response.status !== 200) {
    const described = `The token endpoint refused the refresh (HTTP ${response.status}${
      providerError === undefined ? '' : ` ${providerError}`
    })`;
    throw new AccessTokenRefreshError(failureKind(response.status, providerError), described, providerError);
  }
  const accessToken = answer?.access_token;
  if (typeof accessToken !== 'string' || accessToken === '') {
    throw new AccessTokenRefreshError(
      'malformed',
      'The token endpoint answered without an access token',
      providerError,
    );
  }
  const expiresIn = answer?.expires_in;
  const rotated = answer?.refresh_token;
  return {
    accessToken,
    expiresInSeconds: typeof expiresIn === 'number' && Number.isFinite(expiresIn) ? expiresIn : undefined,
    refreshToken: typeof rotated === 'string' && rotated !== '' ? rotated : undefined,
  };
}

function failureKind(status: number, providerError: string | undefined): RefreshFailureKind {
  if (status === 429 || status >= 500) return 'unavailable';
  if (providerError === 'invalid_grant') return 'revoked';
  return 'client_refused';
}

/** The JSON object answered, or undefined (Google answers JSON, even for errors). */
function parseAnswer(body: Buffer): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

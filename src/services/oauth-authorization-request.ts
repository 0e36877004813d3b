import type { OAuthClientRow } from '../db/repositories/oauth.js';
import { isUuid } from '../uuid.js';
import type { ServiceDependencies } from './dependencies.js';
import { isMcpResource, MCP_SCOPE, mcpResource, PKCE_VALUE, redirectUriMatches } from './oauth-policy.js';

/** An authorization request's query (RFC 6749 4.1.1 with PKCE and RFC 8707's `resource`), as sent. */
export interface AuthorizationParameters {
  readonly response_type?: string;
  readonly client_id?: string;
  readonly redirect_uri?: string;
  readonly code_challenge?: string;
  readonly code_challenge_method?: string;
  readonly state?: string;
  readonly scope?: string;
  readonly resource?: string;
}

/** A request the consent page may show: its client is known and its redirect URI is the client's. */
export interface AuthorizationRequest {
  readonly client: OAuthClientRow;
  readonly redirectUri: string;
  readonly codeChallenge: string;
  readonly state: string | undefined;
  readonly scope: string;
  readonly resource: string;
}

export type CheckedAuthorizationRequest =
  | { readonly kind: 'valid'; readonly request: AuthorizationRequest }
  /** Told to the client at its redirect URI (RFC 6749 4.1.2.1): the URI to send the browser to. */
  | { readonly kind: 'client-error'; readonly redirectTo: string; readonly description: string }
  /** The client or its redirect URI cannot be trusted: told to the person, never redirected. */
  | { readonly kind: 'invalid'; readonly description: string };

const MAX_STATE_LENGTH = 2000;

/**
 * Checks an authorization request. An unknown client or a redirect URI it did not register is
 * never redirected to (an open redirector otherwise); anything else wrong goes back to the client
 * as `error` at its redirect URI, with its `state`.
 */
export async function checkAuthorizationRequest(
  deps: Pick<ServiceDependencies, 'data' | 'config'>,
  parameters: AuthorizationParameters,
): Promise<CheckedAuthorizationRequest> {
  const clientId = parameters.client_id;
  if (clientId === undefined || clientId === '') return invalid('The request names no client (client_id)');
  const client = isUuid(clientId) ? await deps.data.oauth.findClient(clientId.toLowerCase()) : undefined;
  if (client === undefined) {
    return invalid(
      'This application is not registered here (unknown client_id): connect it again from the application',
    );
  }
  const redirectUri = resolveRedirectUri(client, parameters.redirect_uri);
  if (redirectUri === undefined) {
    return invalid('The redirect_uri is not one this application registered');
  }
  const state = parameters.state;
  const refuse = (error: string, description: string): CheckedAuthorizationRequest => ({
    kind: 'client-error',
    redirectTo: authorizationResponse(deps.config.publicUrl, redirectUri, state, {
      error,
      error_description: description,
    }),
    description,
  });
  if (state !== undefined && state.length > MAX_STATE_LENGTH) {
    return refuse('invalid_request', `state is longer than ${MAX_STATE_LENGTH} characters`);
  }
  if (parameters.response_type !== 'code') {
    return refuse('unsupported_response_type', 'Only response_type=code is supported');
  }
  const challenge = parameters.code_challenge;
  if (challenge === undefined || !PKCE_VALUE.test(challenge)) {
    return refuse('invalid_request', 'PKCE is required: send a code_challenge (43 to 128 characters)');
  }
  if (parameters.code_challenge_method !== 'S256') {
    return refuse('invalid_request', 'code_challenge_method must be S256');
  }
  const { publicUrl } = deps.config;
  if (parameters.resource !== undefined && !isMcpResource(publicUrl, parameters.resource)) {
    return refuse('invalid_target', `Tokens here are for ${mcpResource(publicUrl)} only`);
  }
  return {
    kind: 'valid',
    request: {
      client,
      redirectUri,
      codeChallenge: challenge,
      state,
      // One scope whatever was asked: a server may grant other than requested (RFC 6749 3.3), and says so.
      scope: MCP_SCOPE,
      resource: mcpResource(publicUrl),
    },
  };
}

/**
 * The redirect URI to answer at: the one asked for when the client registered it, or the client's
 * only one when none was asked for (RFC 6749 3.1.2.3).
 */
function resolveRedirectUri(client: OAuthClientRow, requested: string | undefined): string | undefined {
  if (requested === undefined || requested === '') {
    return client.redirectUris.length === 1 ? client.redirectUris[0] : undefined;
  }
  return client.redirectUris.some((registered) => redirectUriMatches(registered, requested))
    ? requested
    : undefined;
}

/**
 * The client's redirect URI with the answer added to its query: `code` or `error`, the `state`
 * back, and `iss` (RFC 9207) so a client talking to several servers knows which one answered.
 */
export function authorizationResponse(
  issuer: string,
  redirectUri: string,
  state: string | undefined,
  answer: Readonly<Record<string, string>>,
): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(answer)) url.searchParams.set(name, value);
  if (state !== undefined) url.searchParams.set('state', state);
  url.searchParams.set('iss', issuer);
  return url.toString();
}

function invalid(description: string): CheckedAuthorizationRequest {
  return { kind: 'invalid', description };
}

import { requestJson, requestNothing } from './http';

/** The authorization request's fields, as GET /oauth/authorize passed them on in the page's query. */
export const AUTHORIZATION_FIELDS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'code_challenge',
  'code_challenge_method',
  'state',
  'scope',
  'resource',
] as const;

export type AuthorizationRequest = Partial<Record<(typeof AUTHORIZATION_FIELDS)[number], string>>;

/**
 * The authorization request in a query: only its own fields, each only when given once (the
 * authorization endpoint ignores a repeated one too, so both read the same request).
 */
export function authorizationRequestOf(query: URLSearchParams): AuthorizationRequest {
  const request: AuthorizationRequest = {};
  for (const field of AUTHORIZATION_FIELDS) {
    const values = query.getAll(field);
    if (values.length === 1) request[field] = values[0];
  }
  return request;
}

/** GET /v1/oauth/consent: what the consent page shows. */
export interface ConsentView {
  client_id: string;
  /** The name the application registered itself with: its own claim, vouched for by no one. */
  client_name: string;
  client_uri: string | null;
  redirect_uri: string;
  /** Where the browser goes after the decision (host and port). */
  redirect_host: string;
  scope: string;
  /** What the application may do, a sentence each. */
  abilities: string[];
  /** Who the application will act as. */
  signed_in_as: string;
}

/** An MCP client the caller allowed, until disconnected. */
export interface ConnectedClient {
  /** The connection's id, to disconnect it by. */
  id: string;
  client_id: string;
  client_name: string;
  client_uri: string | null;
  connected_at: string;
  last_used_at: string;
}

/** GET /v1/oauth/consent: the request to show, or a 400 ApiError saying why it cannot be used. */
export function reviewConsent(request: AuthorizationRequest, signal?: AbortSignal): Promise<ConsentView> {
  return requestJson<ConsentView>('GET', '/v1/oauth/consent', {
    query: request,
    ...(signal === undefined ? {} : { signal }),
  });
}

/**
 * POST /v1/oauth/consent: the person's Allow or Deny; answers where the browser goes next (the
 * application's redirect URI with a code, or with `error=access_denied`).
 */
export async function decideConsent(
  request: AuthorizationRequest,
  decision: 'allow' | 'deny',
): Promise<string> {
  const answer = await requestJson<{ redirect_to: string }>('POST', '/v1/oauth/consent', {
    body: { ...request, decision },
  });
  return answer.redirect_to;
}

/** GET /v1/users/me/connected-clients: newest first. */
export async function listConnectedClients(signal?: AbortSignal): Promise<ConnectedClient[]> {
  const answer = await requestJson<{ clients: ConnectedClient[] }>(
    'GET',
    '/v1/users/me/connected-clients',
    signal === undefined ? {} : { signal },
  );
  return answer.clients;
}

/** DELETE /v1/users/me/connected-clients/{id}: the client's tokens stop working. */
export function disconnectClient(id: string): Promise<void> {
  return requestNothing('DELETE', `/v1/users/me/connected-clients/${encodeURIComponent(id)}`);
}

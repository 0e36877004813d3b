import { randomUUID } from 'node:crypto';
import { ServiceError } from '../errors.js';
import type { ServiceDependencies } from './dependencies.js';
import { OAuthError } from './oauth-error.js';
import { redirectUriProblem } from './oauth-policy.js';
import { countHourlyAction } from './password-attempts.js';

const MAX_REDIRECT_URIS = 10;
const MAX_URI_LENGTH = 2000;
const MAX_NAME_LENGTH = 200;

/** RFC 7591's answer: the client's metadata as registered, with its `client_id`. */
export interface RegisteredClientView {
  readonly client_id: string;
  readonly client_id_issued_at: number;
  readonly client_name: string;
  readonly redirect_uris: string[];
  readonly grant_types: string[];
  readonly response_types: string[];
  readonly token_endpoint_auth_method: 'none';
  readonly client_uri?: string;
}

/**
 * Registers an OAuth client (RFC 7591 dynamic client registration), as MCP clients do on first
 * use: public clients only (no secret; PKCE proves each exchange), so a request for another
 * authentication method is answered with `none`, as RFC 7591 lets a server replace metadata.
 * Limited per client address (OAUTH_CLIENT_REGISTRATIONS_PER_HOUR_PER_ADDRESS).
 */
export async function registerOAuthClient(
  deps: ServiceDependencies,
  metadata: unknown,
  clientAddress: string,
): Promise<RegisteredClientView> {
  const request = readMetadata(metadata);
  const perHour = deps.config.authLimits.oauthClientRegistrationsPerHourPerAddress;
  if (perHour > 0) {
    const blocked = await countHourlyAction(deps, `oauth-register:${clientAddress}`, perHour);
    if (blocked > 0) {
      throw new ServiceError(
        'too_many_requests',
        `Too many client registrations from this address; try again in ${Math.ceil(blocked)} s`,
        { retryAfterSeconds: blocked },
      );
    }
  }
  const client = await deps.data.oauth.insertClient({
    id: randomUUID(),
    name: request.name,
    redirectUris: request.redirectUris,
    clientUri: request.clientUri ?? null,
  });
  return {
    client_id: client.id,
    client_id_issued_at: Math.floor(client.createdAt.getTime() / 1000),
    client_name: client.name,
    redirect_uris: [...client.redirectUris],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...(client.clientUri === null ? {} : { client_uri: client.clientUri }),
  };
}

interface ClientRequest {
  readonly name: string;
  readonly redirectUris: readonly string[];
  readonly clientUri: string | undefined;
}

function readMetadata(metadata: unknown): ClientRequest {
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
    throw new OAuthError('invalid_client_metadata', 'The body must be a JSON object of client metadata');
  }
  const fields = metadata as Record<string, unknown>;
  const uris = fields.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0) {
    throw new OAuthError('invalid_redirect_uri', 'redirect_uris must be a non-empty array of URIs');
  }
  if (uris.length > MAX_REDIRECT_URIS) {
    throw new OAuthError('invalid_redirect_uri', `At most ${MAX_REDIRECT_URIS} redirect_uris`);
  }
  const redirectUris: string[] = [];
  for (const uri of uris) {
    if (typeof uri !== 'string' || uri.length > MAX_URI_LENGTH) {
      throw new OAuthError(
        'invalid_redirect_uri',
        `Each redirect URI is a string of at most ${MAX_URI_LENGTH} characters`,
      );
    }
    const problem = redirectUriProblem(uri);
    if (problem !== undefined) throw new OAuthError('invalid_redirect_uri', problem);
    if (!redirectUris.includes(uri)) redirectUris.push(uri);
  }
  checkListed(fields.grant_types, ['authorization_code', 'refresh_token'], 'grant_types');
  checkListed(fields.response_types, ['code'], 'response_types');
  const name = optionalText(fields.client_name, 'client_name', MAX_NAME_LENGTH)?.trim();
  const clientUri = optionalText(fields.client_uri, 'client_uri', MAX_URI_LENGTH);
  if (clientUri !== undefined && !/^https?:\/\//i.test(clientUri)) {
    throw new OAuthError('invalid_client_metadata', 'client_uri must be an http(s) URL');
  }
  // Unnamed: the consent page names it by where it sends people back.
  const fallbackName = new URL(redirectUris[0] ?? '').host;
  return { name: name === undefined || name === '' ? fallbackName : name, redirectUris, clientUri };
}

function checkListed(value: unknown, supported: readonly string[], field: string): void {
  if (value === undefined) return;
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || !supported.includes(item))) {
    throw new OAuthError('invalid_client_metadata', `${field} may hold only ${supported.join(', ')}`);
  }
}

function optionalText(value: unknown, field: string, maxLength: number): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.length > maxLength) {
    throw new OAuthError(
      'invalid_client_metadata',
      `${field} must be a string of at most ${maxLength} characters`,
    );
  }
  return value;
}

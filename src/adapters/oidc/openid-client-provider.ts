import * as client from 'openid-client';
import { GuardedHttpClient, GuardedHttpError } from '../http/guarded-http-client.js';
import {
  type OidcAuthorizationRequest,
  OidcError,
  type OidcFailure,
  type OidcIdentity,
  type OidcProvider,
} from './oidc-provider.js';

export interface OpenIdClientProviderOptions {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string | undefined;
  readonly scopes: string;
  readonly redirectUri: string;
  /** Longest wait for one request to the provider (seconds). */
  readonly timeoutSeconds?: number;
  /** Name resolution, replaceable in tests (see GuardedHttpOptions.resolve). */
  readonly resolve?: ConstructorParameters<typeof GuardedHttpClient>[0]['resolve'];
}

/** How long discovered metadata is used before it is fetched again (the old kept if that fails). */
const DISCOVERY_MAX_AGE_MS = 60 * 60 * 1000;
const MAX_RESPONSE_BYTES = 1024 * 1024;

/**
 * The real provider, through `openid-client`: discovery, the authorization URL, the code exchange
 * and the ID token's verification (`enableNonRepudiationChecks`: its signature against the JWKS,
 * besides the claims the library always checks). Nothing of the protocol is done by hand.
 *
 * Every request goes through the guarded HTTP client: the issuer's origin is trusted (the operator
 * chose it, so a private or loopback provider is reached), its other endpoints (a token or JWKS
 * host elsewhere, as Google's) follow the usual policy: https, public addresses.
 *
 * Each sign-in verifies with a configuration of its own, whose JWKS is read afresh: a provider
 * that just rotated its key is believed at once (a shared cache would refuse a new `kid` for a
 * minute). A sign-in is rare enough that the one extra request does not matter.
 */
export class OpenIdClientProvider implements OidcProvider {
  readonly issuer: string;
  private readonly http: GuardedHttpClient;
  private readonly timeoutSeconds: number;
  /** Plain http only for a loopback issuer, which config.ts allows alone. */
  private readonly insecure: boolean;
  private discovered: { readonly metadata: client.ServerMetadata; readonly at: number } | undefined;
  private pending: Promise<client.ServerMetadata> | undefined;

  constructor(private readonly options: OpenIdClientProviderOptions) {
    this.issuer = options.issuer;
    this.timeoutSeconds = options.timeoutSeconds ?? 10;
    this.insecure = new URL(options.issuer).protocol === 'http:';
    this.http = new GuardedHttpClient({
      allowPrivateNetwork: false,
      trustedOrigins: [new URL(options.issuer).origin],
      timeoutMs: this.timeoutSeconds * 1000,
      totalTimeoutMs: this.timeoutSeconds * 2000,
      maxResponseBytes: MAX_RESPONSE_BYTES,
      remoteName: 'the sign-in provider',
      resolve: options.resolve,
    });
  }

  async discover(): Promise<void> {
    await this.metadata();
  }

  async beginAuthorization(): Promise<OidcAuthorizationRequest> {
    const configuration = this.configuration(await this.metadata());
    const state = client.randomState();
    const nonce = client.randomNonce();
    const codeVerifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(configuration, {
      redirect_uri: this.options.redirectUri,
      scope: this.options.scopes,
      response_type: 'code',
      code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return { url: url.href, state, nonce, codeVerifier };
  }

  async completeAuthorization(
    callbackParameters: URLSearchParams,
    expected: { readonly state: string; readonly nonce: string; readonly codeVerifier: string },
  ): Promise<OidcIdentity> {
    const configuration = this.configuration(await this.metadata());
    // The registered redirect URI with the provider's answer: the library sends that URI back to
    // the token endpoint, whatever host or proxy the request came through.
    const currentUrl = new URL(this.options.redirectUri);
    for (const [name, value] of callbackParameters) currentUrl.searchParams.append(name, value);
    let claims: client.IDToken | undefined;
    try {
      const tokens = await client.authorizationCodeGrant(configuration, currentUrl, {
        pkceCodeVerifier: expected.codeVerifier,
        expectedState: expected.state,
        expectedNonce: expected.nonce,
        idTokenExpected: true,
      });
      claims = tokens.claims();
    } catch (error) {
      throw exchangeError(error);
    }
    if (claims === undefined) throw new OidcError('invalid_token', 'The provider answered no ID token');
    return {
      subject: claims.sub,
      email: typeof claims.email === 'string' && claims.email !== '' ? claims.email : undefined,
      // Some providers send the flag as a string.
      emailVerified: claims.email_verified === true || claims.email_verified === 'true',
      name: typeof claims.name === 'string' && claims.name.trim() !== '' ? claims.name.trim() : undefined,
    };
  }

  /** The discovered metadata: fetched once, again after an hour, and again after every failure. */
  private async metadata(): Promise<client.ServerMetadata> {
    const discovered = this.discovered;
    if (discovered !== undefined) {
      // Stale: refreshed in the background, the old kept meanwhile (and if the refresh fails).
      if (Date.now() - discovered.at > DISCOVERY_MAX_AGE_MS) this.fetchMetadata().catch(() => {});
      return discovered.metadata;
    }
    return this.fetchMetadata();
  }

  private fetchMetadata(): Promise<client.ServerMetadata> {
    this.pending ??= this.discoverNow().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private async discoverNow(): Promise<client.ServerMetadata> {
    let configuration: client.Configuration;
    try {
      configuration = await client.discovery(
        new URL(this.issuer),
        this.options.clientId,
        undefined,
        undefined,
        {
          [client.customFetch]: this.fetch,
          timeout: this.timeoutSeconds,
          execute: this.insecure ? [client.allowInsecureRequests] : [],
        },
      );
    } catch (error) {
      throw new OidcError(
        'provider_unreachable',
        `The discovery document at ${discoveryUrl(this.issuer)} could not be used: ${describe(error)}`,
        { cause: error },
      );
    }
    const metadata = configuration.serverMetadata();
    const problem = metadataProblem(metadata);
    if (problem !== undefined) {
      throw new OidcError(
        'provider_unreachable',
        `The discovery document at ${discoveryUrl(this.issuer)} ${problem}`,
      );
    }
    this.discovered = { metadata, at: Date.now() };
    return metadata;
  }

  /** A configuration of its own for one sign-in (its own JWKS cache: see the class comment). */
  private configuration(metadata: client.ServerMetadata): client.Configuration {
    const configuration = new client.Configuration(
      metadata,
      this.options.clientId,
      this.options.clientSecret === undefined ? undefined : { client_secret: this.options.clientSecret },
      clientAuthentication(metadata, this.options.clientSecret),
    );
    configuration[client.customFetch] = this.fetch;
    configuration.timeout = this.timeoutSeconds;
    client.enableNonRepudiationChecks(configuration);
    if (this.insecure) client.allowInsecureRequests(configuration);
    return configuration;
  }

  /** openid-client's requests, sent by the guarded client and answered as a fetch Response. */
  private readonly fetch: client.CustomFetch = async (url, options) => {
    const method = options.method.toUpperCase();
    if (method !== 'GET' && method !== 'POST') {
      throw new OidcError('provider_error', `Unexpected ${method} request to the sign-in provider`);
    }
    const body = options.body;
    const answer = await this.http.request(url, {
      method,
      headers: options.headers,
      ...(body === undefined || body === null ? {} : { body: bodyText(body) }),
      signal: options.signal,
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value === undefined) continue;
      for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
    }
    if (answer.status < 200 || answer.status > 599) {
      throw new OidcError('provider_unreachable', `The sign-in provider answered HTTP ${answer.status}`);
    }
    const nullBody = answer.status === 204 || answer.status === 205 || answer.status === 304;
    return new Response(nullBody ? null : new Uint8Array(answer.body), { status: answer.status, headers });
  };
}

function discoveryUrl(issuer: string): string {
  return `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
}

/** What the flow needs of the provider, beyond what the library checked (the issuer). */
function metadataProblem(metadata: client.ServerMetadata): string | undefined {
  for (const endpoint of ['authorization_endpoint', 'token_endpoint', 'jwks_uri'] as const) {
    if (typeof metadata[endpoint] !== 'string') return `names no ${endpoint}`;
  }
  const responseTypes = metadata.response_types_supported;
  if (Array.isArray(responseTypes) && !responseTypes.includes('code')) {
    return 'does not offer the authorization code flow (response_types_supported has no "code")';
  }
  const challenges = metadata.code_challenge_methods_supported;
  if (Array.isArray(challenges) && !challenges.includes('S256')) {
    return 'does not offer PKCE with S256 (code_challenge_methods_supported)';
  }
  return undefined;
}

/**
 * The client's authentication at the token endpoint: none for a public client; else HTTP Basic,
 * the default of OpenID Connect (what Okta expects unless told otherwise), unless the provider
 * offers only the secret in the form.
 */
function clientAuthentication(
  metadata: client.ServerMetadata,
  clientSecret: string | undefined,
): client.ClientAuth {
  if (clientSecret === undefined) return client.None();
  const methods = metadata.token_endpoint_auth_methods_supported;
  if (
    Array.isArray(methods) &&
    !methods.includes('client_secret_basic') &&
    methods.includes('client_secret_post')
  ) {
    return client.ClientSecretPost(clientSecret);
  }
  return client.ClientSecretBasic(clientSecret);
}

function bodyText(body: unknown): string | Uint8Array {
  if (typeof body === 'string') return body;
  if (body instanceof URLSearchParams) return body.toString();
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  throw new OidcError('provider_error', 'Unexpected request body for the sign-in provider');
}

/** The failure of a code exchange or verification, in the use cases' terms. */
function exchangeError(error: unknown): OidcError {
  if (error instanceof OidcError) return error;
  if (unreachable(error)) {
    return new OidcError(
      'provider_unreachable',
      `The sign-in provider could not be reached: ${describe(error)}`,
      {
        cause: error,
      },
    );
  }
  if (error instanceof client.ResponseBodyError) {
    // invalid_grant: the code was used, expired, or not issued for this verifier or redirect URI.
    const failure: OidcFailure = error.error === 'invalid_grant' ? 'invalid_token' : 'provider_error';
    return new OidcError(
      failure,
      `The token endpoint refused the code: ${error.error} (HTTP ${error.status})`,
      {
        cause: error,
      },
    );
  }
  if (error instanceof client.WWWAuthenticateChallengeError) {
    return new OidcError('provider_error', `The token endpoint refused the client (HTTP ${error.status})`, {
      cause: error,
    });
  }
  if (error instanceof client.AuthorizationResponseError) {
    return new OidcError('provider_error', `The provider answered ${error.error}`, { cause: error });
  }
  return new OidcError('invalid_token', `The ID token was refused: ${describe(error)}`, { cause: error });
}

/** True when the provider was not reached or did not answer (the guarded client's errors, time-outs). */
function unreachable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    if (current instanceof GuardedHttpError) return true;
    if (
      current instanceof DOMException &&
      (current.name === 'TimeoutError' || current.name === 'AbortError')
    ) {
      return true;
    }
    if (current instanceof client.ClientError && current.code === 'OAUTH_RESPONSE_IS_NOT_CONFORM')
      return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** The error's message and its causes', for the log: the library's messages name no secrets. */
function describe(error: unknown): string {
  const messages: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth += 1) {
    const message = (current as { message?: unknown }).message;
    if (typeof message === 'string' && message !== '' && !messages.includes(message)) messages.push(message);
    current = (current as { cause?: unknown }).cause;
  }
  return messages.join(': ') || String(error);
}

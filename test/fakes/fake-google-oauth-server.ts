import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { FakeHttpsServer, type FakeResponse, type RecordedRequest } from '../helpers/fake-https-server.js';
import { LocalHttpServer } from './local-http-server.js';

/**
 * A local stand-in for Google's OAuth 2.0 authorization-code flow with PKCE, speaking its wire
 * format:
 * - `authorizeUrl` (`GET /o/oauth2/v2/auth`, plain http: the browser only navigates to it) checks
 *   `client_id`, `redirect_uri`, `response_type=code`, `scope` and an S256 `code_challenge`, then, as
 *   a user who clicks "Allow" (or "Cancel" after `denyNext`), redirects to `redirect_uri` with
 *   `code` and `state` (or `error=access_denied`). A bad request is a 400 page, as Google shows.
 * - `tokenUrl` (`POST /token`, https with a self-signed CA in `ca`: the service's token proxy calls
 *   only https) takes the form-encoded `authorization_code` grant: the code once, the same
 *   `redirect_uri`, the client's id and secret, and a `code_verifier` whose SHA-256 is the
 *   challenge; else 400 `invalid_grant` / 401 `invalid_client` in Google's JSON. An authorization
 *   asked with `access_type=offline` also answers a `refresh_token`, as Google does at consent.
 * - the same endpoint takes the `refresh_token` grant (a server's offline access): the client's id
 *   and secret and a refresh token it issued (`issueRefreshToken`, or an offline code exchange)
 *   get a new access token; a revoked or unknown one is 400 `invalid_grant` ("Token has been
 *   expired or revoked."), as Google answers once a user removes the app's access.
 *
 * Every access token it issues is handed to `onAccessToken` (e.g. `FakeDriveServer.addAccessToken`).
 */
export interface FakeGoogleClient {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly redirectUri: string;
}

interface IssuedCode {
  readonly clientId: string;
  readonly redirectUri: string;
  readonly challenge: string;
  readonly scope: string;
  /** `offline`: the exchange also answers a refresh token. */
  readonly accessType: string | undefined;
}

export class FakeGoogleOAuthServer {
  /** The authorization requests the browser made (query parameters). */
  readonly authorizations: Record<string, string>[] = [];
  /** Every access token handed out, oldest first. */
  readonly issuedTokens: string[] = [];
  /** Every access token handed out for a refresh token, by that refresh token, oldest first. */
  readonly refreshedTokens = new Map<string, string[]>();
  private readonly codes = new Map<string, IssuedCode>();
  /** Live refresh tokens and the scope each grants. */
  private readonly refreshTokens = new Map<string, string>();
  private denyNextAuthorization = false;

  private constructor(
    private readonly authorizeServer: LocalHttpServer,
    private readonly tokenServer: FakeHttpsServer,
    readonly authorizeUrl: string,
    private readonly client: FakeGoogleClient,
    private readonly onAccessToken: (token: string) => void,
  ) {}

  static async start(
    client: FakeGoogleClient,
    onAccessToken: (token: string) => void = () => {},
  ): Promise<FakeGoogleOAuthServer> {
    const authorizeServer = await LocalHttpServer.start();
    const tokenServer = await FakeHttpsServer.start();
    const fake = new FakeGoogleOAuthServer(
      authorizeServer,
      tokenServer,
      authorizeServer.url('/o/oauth2/v2/auth'),
      client,
      onAccessToken,
    );
    authorizeServer.serve((request, response) => fake.authorize(request, response));
    tokenServer.respondWith((request) => fake.token(request));
    return fake;
  }

  /** The token endpoint, on the name the test certificate carries. */
  get tokenUrl(): string {
    return this.tokenServer.url('/token');
  }

  /** The PEM the service must trust (OAUTH_PROXY_CA_FILE) to reach `tokenUrl`. */
  get ca(): string {
    return this.tokenServer.ca;
  }

  /** The token requests received, form fields parsed. */
  get tokenRequests(): Record<string, string>[] {
    return this.tokenServer.requests.map((request) => Object.fromEntries(new URLSearchParams(request.body)));
  }

  /**
   * A refresh token for this client, as an offline consent would have given the user's front end
   * (which registers it with the service): the `refresh_token` grant accepts it until revoked.
   */
  issueRefreshToken(scope = 'openid email https://www.googleapis.com/auth/drive.readonly'): string {
    const token = `1//0g${randomBytes(30).toString('base64url')}`;
    this.refreshTokens.set(token, scope);
    return token;
  }

  /** The user removed the app's access (or the token expired): the refresh token is refused from now on. */
  revokeRefreshToken(token: string): void {
    this.refreshTokens.delete(token);
  }

  /** The next authorization is refused by the user ("Cancel" on Google's consent screen). */
  denyNext(): void {
    this.denyNextAuthorization = true;
  }

  async close(): Promise<void> {
    await this.authorizeServer.close();
    await this.tokenServer.close();
  }

  private authorize(request: IncomingMessage, response: ServerResponse): void {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (request.method !== 'GET' || url.pathname !== '/o/oauth2/v2/auth') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
      return;
    }
    const query = Object.fromEntries(url.searchParams);
    this.authorizations.push(query);
    const problem = this.authorizationProblem(query);
    if (problem !== undefined) {
      response
        .writeHead(400, { 'content-type': 'text/html; charset=utf-8' })
        .end(`<!doctype html><title>Error 400</title><h1>Error 400: invalid_request</h1><p>${problem}</p>`);
      return;
    }
    const redirect = new URL(query.redirect_uri as string);
    if (this.denyNextAuthorization) {
      this.denyNextAuthorization = false;
      redirect.searchParams.set('error', 'access_denied');
    } else {
      const code = `4/0A${randomBytes(24).toString('base64url')}`;
      this.codes.set(code, {
        clientId: query.client_id as string,
        redirectUri: query.redirect_uri as string,
        challenge: query.code_challenge as string,
        scope: query.scope as string,
        accessType: query.access_type,
      });
      redirect.searchParams.set('code', code);
      redirect.searchParams.set('scope', query.scope as string);
    }
    if (query.state !== undefined) redirect.searchParams.set('state', query.state);
    response.writeHead(302, { location: redirect.href }).end();
  }

  private authorizationProblem(query: Record<string, string>): string | undefined {
    if (query.client_id !== this.client.clientId) return 'The OAuth client was not found.';
    if (query.redirect_uri !== this.client.redirectUri) return 'redirect_uri_mismatch';
    if (query.response_type !== 'code') return 'Unsupported response_type';
    if (!query.scope) return 'Missing required parameter: scope';
    if (query.code_challenge_method !== 'S256') return 'code_challenge_method must be S256';
    if (!/^[A-Za-z0-9_-]{43}$/.test(query.code_challenge ?? '')) return 'Invalid code_challenge';
    return undefined;
  }

  private token(request: RecordedRequest): FakeResponse {
    const form = Object.fromEntries(new URLSearchParams(request.body));
    const refuse = (status: number, error: string, description: string): FakeResponse => ({
      status,
      body: { error, error_description: description },
    });
    if (request.method !== 'POST' || !request.path.startsWith('/token')) {
      return refuse(404, 'not_found', 'Not Found');
    }
    if (form.client_id !== this.client.clientId || form.client_secret !== this.client.clientSecret) {
      return refuse(401, 'invalid_client', 'Unauthorized');
    }
    if (form.grant_type === 'refresh_token') return this.refresh(form, refuse);
    if (form.grant_type !== 'authorization_code') {
      return refuse(400, 'unsupported_grant_type', 'Invalid grant_type');
    }
    const issued = this.codes.get(form.code ?? '');
    if (issued === undefined) return refuse(400, 'invalid_grant', 'Malformed auth code.');
    this.codes.delete(form.code ?? '');
    if (issued.redirectUri !== form.redirect_uri) return refuse(400, 'redirect_uri_mismatch', 'Bad Request');
    const challenge = createHash('sha256')
      .update(form.code_verifier ?? '')
      .digest('base64url');
    if (challenge !== issued.challenge) return refuse(400, 'invalid_grant', 'Invalid code verifier.');
    const accessToken = this.newAccessToken();
    const body: Record<string, unknown> = {
      access_token: accessToken,
      expires_in: 3599,
      scope: issued.scope,
      token_type: 'Bearer',
    };
    if (issued.accessType === 'offline') {
      const refreshToken = `1//0g${randomBytes(30).toString('base64url')}`;
      this.refreshTokens.set(refreshToken, issued.scope);
      body.refresh_token = refreshToken;
    }
    return { body };
  }

  /** The `refresh_token` grant: a new access token (and, as Google, no new refresh token). */
  private refresh(
    form: Record<string, string>,
    refuse: (status: number, error: string, description: string) => FakeResponse,
  ): FakeResponse {
    const refreshToken = form.refresh_token ?? '';
    if (refreshToken === '')
      return refuse(400, 'invalid_request', 'Missing required parameter: refresh_token');
    const scope = this.refreshTokens.get(refreshToken);
    if (scope === undefined) return refuse(400, 'invalid_grant', 'Token has been expired or revoked.');
    const accessToken = this.newAccessToken();
    this.refreshedTokens.set(refreshToken, [...(this.refreshedTokens.get(refreshToken) ?? []), accessToken]);
    return { body: { access_token: accessToken, expires_in: 3599, scope, token_type: 'Bearer' } };
  }

  private newAccessToken(): string {
    const accessToken = `ya29.a0${randomBytes(30).toString('base64url')}`;
    this.issuedTokens.push(accessToken);
    this.onAccessToken(accessToken);
    return accessToken;
  }
}

import { createHash, randomBytes, randomUUID, type webcrypto } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import { readBody, sendBody, sendJson } from './local-http-server.js';

/** Who the fake signs in. */
export interface FakeOidcUser {
  sub: string;
  email: string;
  email_verified?: boolean;
  name?: string;
}

/**
 * How the next ID tokens are wrong: `email_verified: false`, another `aud`, another `iss`,
 * another `nonce`, `exp` an hour ago, or a signature by a key the JWKS does not hold (under the
 * published key's `kid`, as a forger would).
 */
export type FakeOidcMisbehaviour =
  | 'unverified_email'
  | 'wrong_audience'
  | 'wrong_issuer'
  | 'wrong_nonce'
  | 'expired'
  | 'other_key'
  | null;

export interface FakeOidcProvider {
  /** http://127.0.0.1:<port> */
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Who the next authorization signs in as. */
  setUser(user: FakeOidcUser): void;
  /** How the next ID tokens are wrong (null: right again). */
  misbehave(mode: FakeOidcMisbehaviour): void;
  /** A new signing key, published in the JWKS; the old one is dropped. */
  rotateKey(): void;
  /** Authorization redirects back with `?error=<error>` (null: signs in again). */
  deny(error: string | null): void;
  close(): Promise<void>;
}

interface SigningKey {
  readonly kid: string;
  readonly privateKey: webcrypto.CryptoKey;
  readonly publicJwk: JWK;
}

/** An authorization code handed out, waiting for its one exchange. */
interface IssuedCode {
  readonly clientId: string;
  readonly redirectUri: string;
  readonly challenge: string;
  readonly nonce: string | undefined;
  readonly scope: string;
  readonly user: FakeOidcUser;
}

const DEFAULT_USER: FakeOidcUser = { sub: 'fake-user', email: 'person@example.com', email_verified: true };

/**
 * A local OpenID Connect provider speaking the real protocol over HTTP on 127.0.0.1:
 * - `GET /.well-known/openid-configuration`: discovery (issuer, endpoints, RS256, S256, client
 *   authentication by HTTP Basic, form or none);
 * - `GET /jwks`: the current signing key (RSA, `kid`, `use: sig`, `alg: RS256`);
 * - `GET /authorize`: no login page. It checks `client_id`, `response_type=code`, `redirect_uri`,
 *   an `openid` scope and an S256 `code_challenge`, then redirects straight back to `redirect_uri`
 *   with `code` and `state`, as the configured user (or with `error` after `deny`). A bad request is
 *   a 400 page, as providers show;
 * - `POST /token`: the `authorization_code` grant. It checks the client (its secret by Basic or
 *   form), the code (once only),
 *   `redirect_uri` and the PKCE verifier against the challenge; answers an RS256 ID token (`iss`,
 *   `sub`, `aud`, `exp`, `iat`, `auth_time`, `nonce`, `email`, `email_verified`, `name`) and an
 *   access token. Errors are OAuth's JSON (`invalid_client` 401, `invalid_grant` 400, …).
 */
export async function startFakeOidcProvider(
  options: { clientId?: string; clientSecret?: string; port?: number } = {},
): Promise<FakeOidcProvider> {
  const clientId = options.clientId ?? 'knowledge-answers';
  const clientSecret = options.clientSecret ?? `secret-${randomBytes(12).toString('hex')}`;
  let user = DEFAULT_USER;
  let misbehaviour: FakeOidcMisbehaviour = null;
  let denial: string | null = null;
  let key = await newSigningKey();
  const codes = new Map<string, IssuedCode>();
  const usedCodes = new Set<string>();
  /** A key being made (rotateKey): requests wait for it, so the JWKS and the signer switch together. */
  let rotation: Promise<void> = Promise.resolve();

  const server = createServer((request, response) => {
    response.on('error', () => {});
    handle(request, response).catch((error: unknown) => {
      if (response.headersSent) response.destroy();
      else sendBody(response, 500, String(error), { 'content-type': 'text/plain' });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    await rotation;
    const url = new URL(request.url ?? '/', issuer);
    if (request.method === 'GET' && url.pathname === '/.well-known/openid-configuration') {
      sendJson(response, 200, discoveryDocument());
    } else if (request.method === 'GET' && url.pathname === '/jwks') {
      sendJson(response, 200, { keys: [key.publicJwk] });
    } else if (request.method === 'GET' && url.pathname === '/authorize') {
      authorize(url.searchParams, response);
    } else if (request.method === 'POST' && url.pathname === '/token') {
      await token(request, response);
    } else {
      sendJson(response, 404, { error: 'not_found' });
    }
  }

  function discoveryDocument(): Record<string, unknown> {
    return {
      issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
      jwks_uri: `${issuer}/jwks`,
      response_types_supported: ['code'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
      scopes_supported: ['openid', 'email', 'profile'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      code_challenge_methods_supported: ['S256'],
      claims_supported: ['sub', 'iss', 'aud', 'exp', 'iat', 'nonce', 'email', 'email_verified', 'name'],
    };
  }

  function authorize(query: URLSearchParams, response: ServerResponse): void {
    const redirectUri = query.get('redirect_uri');
    const problem =
      query.get('client_id') !== clientId
        ? 'unknown client_id'
        : redirectUri === null || !/^https?:\/\//.test(redirectUri)
          ? 'missing or invalid redirect_uri'
          : query.get('response_type') !== 'code'
            ? 'response_type must be code'
            : !(query.get('scope') ?? '').split(' ').includes('openid')
              ? 'scope must include openid'
              : query.get('code_challenge_method') !== 'S256' || !query.get('code_challenge')
                ? 'an S256 code_challenge is required'
                : undefined;
    if (problem !== undefined || redirectUri === null) {
      sendBody(response, 400, `<h1>Bad authorization request</h1><p>${problem}</p>`, {
        'content-type': 'text/html',
      });
      return;
    }
    const back = new URL(redirectUri);
    const state = query.get('state');
    if (denial !== null) {
      back.searchParams.set('error', denial);
      back.searchParams.set('error_description', 'The person or the provider refused');
    } else {
      const code = randomBytes(24).toString('base64url');
      codes.set(code, {
        clientId,
        redirectUri,
        challenge: query.get('code_challenge') ?? '',
        nonce: query.get('nonce') ?? undefined,
        scope: query.get('scope') ?? '',
        user,
      });
      back.searchParams.set('code', code);
    }
    if (state !== null) back.searchParams.set('state', state);
    response.writeHead(302, { location: back.href, 'content-length': '0' });
    response.end();
  }

  async function token(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const form = new URLSearchParams(await readBody(request));
    const oauthError = (status: number, error: string, description: string) =>
      void sendJson(
        response,
        status,
        { error, error_description: description },
        { 'cache-control': 'no-store' },
      );
    const client = clientOf(request.headers.authorization, form);
    if (client === undefined || client.id !== clientId) {
      return oauthError(401, 'invalid_client', 'Unknown client');
    }
    if (client.secret !== clientSecret)
      return oauthError(401, 'invalid_client', 'Client authentication failed');
    if (form.get('grant_type') !== 'authorization_code') {
      return oauthError(400, 'unsupported_grant_type', 'Only authorization_code');
    }
    const code = form.get('code') ?? '';
    const issued = codes.get(code);
    if (issued === undefined) {
      return oauthError(400, 'invalid_grant', usedCodes.has(code) ? 'Code already used' : 'Unknown code');
    }
    // Single use, whatever happens next.
    codes.delete(code);
    usedCodes.add(code);
    if (form.get('redirect_uri') !== issued.redirectUri) {
      return oauthError(400, 'invalid_grant', 'redirect_uri does not match the authorization request');
    }
    const verifier = form.get('code_verifier') ?? '';
    if (createHash('sha256').update(verifier).digest('base64url') !== issued.challenge) {
      return oauthError(400, 'invalid_grant', 'PKCE verification failed');
    }
    sendJson(
      response,
      200,
      {
        access_token: randomBytes(24).toString('base64url'),
        token_type: 'Bearer',
        expires_in: 3600,
        scope: issued.scope,
        id_token: await idToken(issued),
      },
      { 'cache-control': 'no-store' },
    );
  }

  async function idToken(issued: IssuedCode): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const expired = misbehaviour === 'expired';
    const claims: Record<string, unknown> = {
      email: issued.user.email,
      email_verified: misbehaviour === 'unverified_email' ? false : (issued.user.email_verified ?? true),
      auth_time: now,
      ...(issued.user.name === undefined ? {} : { name: issued.user.name }),
      ...(issued.nonce === undefined && misbehaviour !== 'wrong_nonce'
        ? {}
        : { nonce: misbehaviour === 'wrong_nonce' ? 'not-the-nonce-you-sent' : issued.nonce }),
    };
    const signer = misbehaviour === 'other_key' ? { ...(await newSigningKey()), kid: key.kid } : key;
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: signer.kid, typ: 'JWT' })
      .setIssuer(misbehaviour === 'wrong_issuer' ? 'https://impostor.example.com' : issuer)
      .setSubject(issued.user.sub)
      .setAudience(misbehaviour === 'wrong_audience' ? 'another-client' : issued.clientId)
      .setIssuedAt(expired ? now - 7200 : now)
      .setExpirationTime(expired ? now - 3600 : now + 600)
      .sign(signer.privateKey);
  }

  return {
    issuer,
    clientId,
    clientSecret,
    setUser(next) {
      user = { ...next };
    },
    misbehave(mode) {
      misbehaviour = mode;
    },
    rotateKey() {
      rotation = rotation.then(async () => {
        key = await newSigningKey();
      });
    },
    deny(error) {
      denial = error;
    },
    async close() {
      await rotation;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function newSigningKey(): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = randomUUID();
  return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
}

/** The client's id and secret: HTTP Basic (form-encoded parts, RFC 6749 2.3.1), else the form's. */
function clientOf(
  authorization: string | undefined,
  form: URLSearchParams,
): { id: string; secret: string | undefined } | undefined {
  if (authorization?.startsWith('Basic ')) {
    const decoded = Buffer.from(authorization.slice('Basic '.length), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon === -1) return undefined;
    const part = (text: string) => decodeURIComponent(text.replace(/\+/g, ' '));
    return { id: part(decoded.slice(0, colon)), secret: part(decoded.slice(colon + 1)) };
  }
  const id = form.get('client_id');
  if (id === null) return undefined;
  return { id, secret: form.get('client_secret') ?? undefined };
}

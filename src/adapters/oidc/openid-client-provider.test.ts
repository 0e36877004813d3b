import { afterEach, describe, expect, it } from 'vitest';
import { LocalHttpServer, sendJson } from '../../../test/fakes/local-http-server.js';
import { OidcError } from './oidc-provider.js';
import { OpenIdClientProvider } from './openid-client-provider.js';

/** A provider whose discovery document the test writes; it records the paths asked for. */
async function providerServing(document: (issuer: string) => Record<string, unknown>) {
  const server = await LocalHttpServer.start();
  const issuer = server.url();
  const requested: string[] = [];
  server.serve((request, response) => {
    requested.push(request.url ?? '');
    if (request.url === '/.well-known/openid-configuration') sendJson(response, 200, document(issuer));
    else sendJson(response, 404, { error: 'not_found' });
  });
  const provider = new OpenIdClientProvider({
    issuer,
    clientId: 'client',
    clientSecret: 'the-client-secret',
    scopes: 'openid email',
    redirectUri: 'https://answers.example.com/v1/auth/oidc/callback',
  });
  return { server, issuer, requested, provider };
}

function documentOf(issuer: string, changes: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    jwks_uri: `${issuer}/jwks`,
    response_types_supported: ['code'],
    code_challenge_methods_supported: ['S256'],
    ...changes,
  };
}

async function failureOf(promise: Promise<unknown>): Promise<OidcError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof OidcError)) throw new Error(`expected an OidcError, got ${String(error)}`);
  return error;
}

describe('OpenIdClientProvider: discovery and the guarded way to the provider', () => {
  const servers: LocalHttpServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  it('refuses a discovery document that names another issuer, or offers no PKCE with S256', async () => {
    const impostor = await providerServing((issuer) =>
      documentOf(issuer, { issuer: 'https://impostor.example' }),
    );
    servers.push(impostor.server);
    const wrongIssuer = await failureOf(impostor.provider.discover());
    expect(wrongIssuer.failure).toBe('provider_unreachable');
    expect(wrongIssuer.message).toContain(`${impostor.issuer}/.well-known/openid-configuration`);
    expect(wrongIssuer.message).toContain('issuer');

    const plain = await providerServing((issuer) =>
      documentOf(issuer, { code_challenge_methods_supported: ['plain'] }),
    );
    servers.push(plain.server);
    expect((await failureOf(plain.provider.beginAuthorization())).message).toContain('S256');
    // Not remembered: the next call asks again.
    await failureOf(plain.provider.discover());
    expect(plain.requested.filter((path) => path.includes('openid-configuration'))).toHaveLength(2);
  });

  it('reaches the issuer’s own origin on a loopback address, but no other private or plain-http endpoint it names', async () => {
    // The token endpoint on another origin (localhost is not 127.0.0.1 to the policy): plain http
    // to a private address, which only the operator's own issuer may be.
    const elsewhere = await providerServing((issuer) =>
      documentOf(issuer, { token_endpoint: `${issuer.replace('127.0.0.1', 'localhost')}/token` }),
    );
    servers.push(elsewhere.server);
    const request = await elsewhere.provider.beginAuthorization();
    expect(request.url.startsWith(`${elsewhere.issuer}/authorize?`)).toBe(true);
    const callback = new URLSearchParams({ code: 'a-code', state: request.state });
    const refused = await failureOf(elsewhere.provider.completeAuthorization(callback, request));
    expect(refused.failure).toBe('provider_unreachable');
    expect(refused.message).toContain('Refused');
    expect(refused.message).not.toContain('the-client-secret');
    // Nothing was sent there: the code and the secret stayed home.
    expect(elsewhere.requested.some((path) => path.startsWith('/token'))).toBe(false);
  });
});

import { createHash, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRIVATE_DOCUMENT, SHARED_DOCUMENT } from '../../../../test/helpers/mcp-documents.js';
import { scimClient } from '../../../../test/helpers/scim-client.js';
import {
  bearer,
  joinedMember,
  registerUser,
  startTestApp,
  type TestApp,
  uploadDocuments,
} from '../../../../test/helpers/test-app.js';

/** The service's public address: not where it listens, as behind a reverse proxy. */
const PUBLIC_URL = 'https://knowledge.example.test';
const REDIRECT_URI = 'http://127.0.0.1:33418/callback';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** An MCP client's OAuth state, kept in memory as the SDK asks a client to keep it. */
class MemoryOAuthClient implements OAuthClientProvider {
  information: OAuthClientInformationMixed | undefined;
  savedTokens: OAuthTokens | undefined;
  authorizationUrl: URL | undefined;
  private verifier = '';

  get redirectUrl(): string {
    return REDIRECT_URI;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Test assistant',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.information = information;
  }
  tokens() {
    return this.savedTokens;
  }
  saveTokens(tokens: OAuthTokens) {
    this.savedTokens = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

describe('OAuth 2.1 for MCP clients: metadata, registration, consent, tokens, revocation', () => {
  let testApp: TestApp;
  let baseUrl: string;
  let owner: Awaited<ReturnType<typeof registerUser>>;
  const clients: Client[] = [];
  const { scim, team } = scimClient(() => testApp);

  beforeAll(async () => {
    testApp = await startTestApp({
      worker: true,
      env: { PUBLIC_URL, OAUTH_CLIENT_REGISTRATIONS_PER_HOUR_PER_ADDRESS: '5' },
    });
    owner = await registerUser(testApp.app);
    const job = await uploadDocuments(testApp.app, owner.token, [SHARED_DOCUMENT, PRIVATE_DOCUMENT]);
    expect(job.files.map((file) => file.status)).toEqual(['indexed', 'indexed']);
    await testApp.app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(testApp.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await testApp?.close();
  });

  /** The network as the client sees it: the public address reaches the test server. */
  const viaPublicUrl: FetchLike = (url, init) => fetch(String(url).replace(PUBLIC_URL, baseUrl), init);

  /** Each registration from its own address, so the per-address limit is met only where tested. */
  let addressCounter = 0;
  async function registerClient(metadata: Record<string, unknown>) {
    addressCounter += 1;
    return testApp.app.inject({
      method: 'POST',
      url: '/oauth/register',
      remoteAddress: `198.51.100.${addressCounter}`,
      payload: metadata,
    });
  }

  async function newClient(name = 'Cursor'): Promise<string> {
    const registered = await registerClient({ client_name: name, redirect_uris: [REDIRECT_URI] });
    expect(registered.statusCode, registered.body).toBe(201);
    return registered.json().client_id as string;
  }

  /** The consent page's Allow (or Deny) for `token`'s person; answers where the browser goes. */
  async function decide(token: string, query: Record<string, string>, decision: 'allow' | 'deny') {
    const decided = await testApp.app.inject({
      method: 'POST',
      url: '/v1/oauth/consent',
      headers: bearer(token),
      payload: { ...query, decision },
    });
    expect(decided.statusCode, decided.body).toBe(200);
    return new URL(decided.json().redirect_to as string);
  }

  /** A full authorization for `token`'s person: a code, and what the exchange needs with it. */
  async function authorize(token: string, clientId: string, state = randomBytes(8).toString('hex')) {
    const { verifier, challenge } = pkcePair();
    const query = {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state,
      resource: `${PUBLIC_URL}/mcp`,
    };
    const redirect = await decide(token, query, 'allow');
    expect(redirect.searchParams.get('state')).toBe(state);
    const code = redirect.searchParams.get('code');
    if (code === null) throw new Error(`no code in ${redirect}`);
    return { code, verifier, clientId };
  }

  const tokenRequest = (fields: Record<string, string>) =>
    testApp.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: FORM,
      payload: new URLSearchParams(fields).toString(),
    });

  const refresh = (refreshToken: string, clientId: string) =>
    tokenRequest({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId });

  async function exchange(grant: { code: string; verifier: string; clientId: string }) {
    const response = await tokenRequest({
      grant_type: 'authorization_code',
      code: grant.code,
      redirect_uri: REDIRECT_URI,
      client_id: grant.clientId,
      code_verifier: grant.verifier,
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as OAuthTokens & { refresh_token: string };
  }

  /** A `search` call at /mcp with `token`, as a plain JSON-RPC request: its HTTP status and hits. */
  async function mcpSearch(token: string, query: string): Promise<{ status: number; titles: string[] }> {
    const response = await testApp.app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...bearer(token), accept: 'application/json, text/event-stream' },
      payload: {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'search', arguments: { query } },
      },
    });
    if (response.statusCode !== 200) return { status: response.statusCode, titles: [] };
    const result = response.json().result as CallToolResult;
    const [content] = result.content;
    const text = content?.type === 'text' ? content.text : '{"results":[]}';
    const { results } = JSON.parse(text) as { results: { title: string }[] };
    return { status: 200, titles: results.map((hit) => hit.title) };
  }

  it('publishes the authorization server metadata (RFC 8414) and the protected resource (RFC 9728)', async () => {
    const metadata = await testApp.app.inject({ url: '/.well-known/oauth-authorization-server' });
    expect(metadata.statusCode).toBe(200);
    expect(metadata.json()).toMatchObject({
      issuer: PUBLIC_URL,
      authorization_endpoint: `${PUBLIC_URL}/oauth/authorize`,
      token_endpoint: `${PUBLIC_URL}/oauth/token`,
      registration_endpoint: `${PUBLIC_URL}/oauth/register`,
      revocation_endpoint: `${PUBLIC_URL}/oauth/revoke`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
    });
    expect(metadata.json().token_endpoint_auth_methods_supported).toContain('none');
    for (const url of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
    ]) {
      const resource = await testApp.app.inject({ url });
      expect(resource.json()).toMatchObject({
        resource: `${PUBLIC_URL}/mcp`,
        authorization_servers: [PUBLIC_URL],
      });
    }
  });

  it('connects the official MCP SDK client through discovery, registration, consent and the token endpoint', async () => {
    const oauthClient = new MemoryOAuthClient();
    const transport = new StreamableHTTPClientTransport(new URL(`${PUBLIC_URL}/mcp`), {
      authProvider: oauthClient,
      fetch: viaPublicUrl,
    });
    const first = new Client({ name: 'oauth-test', version: '1.0.0' });
    await expect(first.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    const clientId = oauthClient.information?.client_id;
    expect(clientId).toBeDefined();

    // The browser opens the authorization URL: the service sends it to the consent page.
    const authorizationUrl = oauthClient.authorizationUrl;
    if (authorizationUrl === undefined) throw new Error('the SDK never asked to open a browser');
    expect(authorizationUrl.origin + authorizationUrl.pathname).toBe(`${PUBLIC_URL}/oauth/authorize`);
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl.searchParams.get('resource')).toBe(`${PUBLIC_URL}/mcp`);
    const opened = await testApp.app.inject({ url: authorizationUrl.pathname + authorizationUrl.search });
    expect(opened.statusCode).toBe(302);
    const consentPage = String(opened.headers.location);
    expect(consentPage).toBe(`/authorize${authorizationUrl.search}`);

    // The page shows who asks, as whom, and for what.
    const query = Object.fromEntries(new URL(consentPage, PUBLIC_URL).searchParams);
    const shown = await testApp.app.inject({
      url: `/v1/oauth/consent?${new URLSearchParams(query)}`,
      headers: bearer(owner.token),
    });
    expect(shown.statusCode, shown.body).toBe(200);
    expect(shown.json()).toMatchObject({
      client_id: clientId,
      client_name: 'Test assistant',
      redirect_host: '127.0.0.1:33418',
      scope: 'mcp',
      signed_in_as: (owner.body.user as { email: string }).email,
    });

    const redirect = await decide(owner.token, query, 'allow');
    expect(redirect.origin + redirect.pathname).toBe(REDIRECT_URI);
    expect(redirect.searchParams.get('iss')).toBe(PUBLIC_URL);
    expect(redirect.searchParams.get('state')).toBe(authorizationUrl.searchParams.get('state'));
    await transport.finishAuth(String(redirect.searchParams.get('code')));
    expect(oauthClient.savedTokens).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'mcp' });

    const connected = new Client({ name: 'oauth-test', version: '1.0.0' });
    await connected.connect(
      new StreamableHTTPClientTransport(new URL(`${PUBLIC_URL}/mcp`), {
        authProvider: oauthClient,
        fetch: viaPublicUrl,
      }),
    );
    clients.push(connected);
    const result = (await connected.callTool({
      name: 'search',
      arguments: { query: 'descale espresso' },
    })) as CallToolResult;
    expect(result.content[0]?.type === 'text' ? result.content[0].text : '').toContain(
      'Espresso machine care',
    );
  });

  it("acts as the person who allowed it at /mcp, and nowhere else: a teammate's token sees no private upload", async () => {
    const clientId = await newClient();
    const ownerTokens = await exchange(await authorize(owner.token, clientId));
    expect((await mcpSearch(ownerTokens.access_token, 'zanzibar bonus pool')).titles).toContain(
      'Salary review notes',
    );

    const teammate = await joinedMember(testApp.app, owner.token);
    const teammateTokens = await exchange(await authorize(teammate, clientId));
    const seen = await mcpSearch(teammateTokens.access_token, 'zanzibar bonus pool');
    expect(seen.status).toBe(200);
    expect(seen.titles).not.toContain('Salary review notes');
    expect((await mcpSearch(teammateTokens.access_token, 'descale espresso')).titles).toContain(
      'Espresso machine care',
    );

    // Not an API key for the rest of the service: the account, the team, the OpenAI-compatible API.
    for (const url of ['/v1/users/me', '/v1/documents', '/v1/users/me/tokens', '/openai/v1/models']) {
      const refused = await testApp.app.inject({ url, headers: bearer(ownerTokens.access_token) });
      expect(refused.statusCode, url).toBe(401);
    }
  });

  it('takes a code once: a replay is invalid_grant and revokes the tokens the first exchange gave', async () => {
    const grant = await authorize(owner.token, await newClient());
    const tokens = await exchange(grant);
    expect((await mcpSearch(tokens.access_token, 'espresso')).status).toBe(200);

    const replay = await tokenRequest({
      grant_type: 'authorization_code',
      code: grant.code,
      redirect_uri: REDIRECT_URI,
      client_id: grant.clientId,
      code_verifier: grant.verifier,
    });
    expect(replay.statusCode).toBe(400);
    expect(replay.json()).toMatchObject({ error: 'invalid_grant' });
    expect(replay.headers['cache-control']).toBe('no-store');
    expect((await mcpSearch(tokens.access_token, 'espresso')).status).toBe(401);
    const renewed = await refresh(tokens.refresh_token, grant.clientId);
    expect(renewed.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('binds a code to its client, redirect URI and PKCE verifier; a wrong attempt does not spend it', async () => {
    const grant = await authorize(owner.token, await newClient());
    const otherClient = await newClient('Another client');
    const base = {
      grant_type: 'authorization_code',
      code: grant.code,
      redirect_uri: REDIRECT_URI,
      client_id: grant.clientId,
      code_verifier: grant.verifier,
    };
    const wrong = [
      { ...base, client_id: otherClient },
      { ...base, redirect_uri: 'http://127.0.0.1:33418/elsewhere' },
      { ...base, code_verifier: pkcePair().verifier },
    ];
    for (const fields of wrong) {
      const refused = await tokenRequest(fields);
      expect(refused.statusCode, JSON.stringify(fields)).toBe(400);
      expect(refused.json().error).toBe('invalid_grant');
    }
    const unknownClient = await tokenRequest({ ...base, client_id: '00000000-0000-4000-8000-000000000000' });
    expect(unknownClient.statusCode).toBe(401);
    expect(unknownClient.json().error).toBe('invalid_client');
    const missing = await tokenRequest({ grant_type: 'authorization_code', client_id: grant.clientId });
    expect(missing.json()).toMatchObject({ error: 'invalid_request' });
    const unsupported = await tokenRequest({ grant_type: 'password', client_id: grant.clientId });
    expect(unsupported.json()).toMatchObject({ error: 'unsupported_grant_type' });

    const tokens = await exchange(grant);
    expect(tokens).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'mcp' });
  });

  it('rotates refresh tokens, and a used one presented again revokes the connection', async () => {
    const clientId = await newClient();
    const first = await exchange(await authorize(owner.token, clientId));
    const refreshed = await refresh(first.refresh_token, clientId);
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    const second = refreshed.json() as { access_token: string; refresh_token: string };
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect((await mcpSearch(second.access_token, 'espresso')).status).toBe(200);

    const reused = await refresh(first.refresh_token, clientId);
    expect(reused.json()).toMatchObject({ error: 'invalid_grant' });
    expect((await mcpSearch(second.access_token, 'espresso')).status).toBe(401);
    const afterReuse = await refresh(second.refresh_token, clientId);
    expect(afterReuse.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('revokes a refresh token (the whole connection) or an access token at the revocation endpoint', async () => {
    const clientId = await newClient();
    const tokens = await exchange(await authorize(owner.token, clientId));
    const revoke = (token: string, client = clientId) =>
      testApp.app.inject({
        method: 'POST',
        url: '/oauth/revoke',
        headers: FORM,
        payload: new URLSearchParams({ token, client_id: client }).toString(),
      });

    // Another client cannot revoke it, and is not told whether it exists.
    expect((await revoke(tokens.refresh_token, await newClient('Intruder'))).statusCode).toBe(200);
    expect((await mcpSearch(tokens.access_token, 'espresso')).status).toBe(200);

    expect((await revoke(tokens.refresh_token)).statusCode).toBe(200);
    expect((await mcpSearch(tokens.access_token, 'espresso')).status).toBe(401);
    expect((await revoke('kar_unknown')).statusCode).toBe(200);

    const again = await exchange(await authorize(owner.token, clientId));
    expect((await revoke(again.access_token)).statusCode).toBe(200);
    expect((await mcpSearch(again.access_token, 'espresso')).status).toBe(401);
    const renewed = await refresh(again.refresh_token, clientId);
    expect(renewed.statusCode, 'the connection outlives one revoked access token').toBe(200);
  });

  it('registers public clients with https or loopback redirect URIs only, limited per address', async () => {
    const registered = await registerClient({
      client_name: 'Claude',
      redirect_uris: ['https://claude.ai/api/mcp/auth_callback'],
      token_endpoint_auth_method: 'client_secret_basic',
    });
    expect(registered.statusCode).toBe(201);
    expect(registered.json()).toMatchObject({
      client_name: 'Claude',
      redirect_uris: ['https://claude.ai/api/mcp/auth_callback'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
    });
    expect(registered.json()).not.toHaveProperty('client_secret');

    for (const uri of [
      'http://example.com/callback',
      'cursor://anysphere.cursor-retrieval/oauth/callback',
      'https://client.example/cb#fragment',
      'not a url',
    ]) {
      const refused = await registerClient({ client_name: 'Bad', redirect_uris: [uri] });
      expect(refused.statusCode, uri).toBe(400);
      expect(refused.json().error, uri).toBe('invalid_redirect_uri');
    }
    const noUris = await registerClient({ client_name: 'Bad' });
    expect(noUris.json().error).toBe('invalid_redirect_uri');

    const fromOneAddress = () =>
      testApp.app.inject({
        method: 'POST',
        url: '/oauth/register',
        remoteAddress: '203.0.113.7',
        payload: { client_name: 'Spam', redirect_uris: [REDIRECT_URI] },
      });
    for (let i = 0; i < 5; i += 1) expect((await fromOneAddress()).statusCode).toBe(201);
    const limited = await fromOneAddress();
    expect(limited.statusCode).toBe(429);
    expect(limited.json().error).toBe('too_many_requests');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('never redirects to an unknown client or an unregistered URI; tells the client the rest at its URI', async () => {
    const clientId = await newClient();
    const { challenge } = pkcePair();
    const valid = {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 'xyz',
    };
    const open = (query: Record<string, string>, accept = 'text/html') =>
      testApp.app.inject({ url: `/oauth/authorize?${new URLSearchParams(query)}`, headers: { accept } });

    const unknown = await open({ ...valid, client_id: '00000000-0000-4000-8000-000000000000' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.headers.location).toBeUndefined();
    expect(unknown.body).toContain('not registered');
    const elsewhere = await open(
      { ...valid, redirect_uri: 'https://attacker.example/cb' },
      'application/json',
    );
    expect(elsewhere.statusCode).toBe(400);
    expect(elsewhere.json().error).toBe('invalid_request');

    const noPkce = await open({ ...valid, code_challenge: '' });
    expect(noPkce.statusCode).toBe(302);
    const told = new URL(String(noPkce.headers.location));
    expect(told.origin + told.pathname).toBe(REDIRECT_URI);
    expect(told.searchParams.get('error')).toBe('invalid_request');
    expect(told.searchParams.get('state')).toBe('xyz');
    const plain = new URL(
      String((await open({ ...valid, code_challenge_method: 'plain' })).headers.location),
    );
    expect(plain.searchParams.get('error')).toBe('invalid_request');
    const otherResource = new URL(
      String((await open({ ...valid, resource: 'https://other.example/mcp' })).headers.location),
    );
    expect(otherResource.searchParams.get('error')).toBe('invalid_target');

    // A loopback redirect URI matches on any port (RFC 8252): the client listens where it can.
    const otherPort = await open({ ...valid, redirect_uri: 'http://127.0.0.1:50123/callback' });
    expect(otherPort.statusCode).toBe(302);
    expect(String(otherPort.headers.location)).toMatch(/^\/authorize\?/);
  });

  it('sends Deny back as access_denied with the state, and gives no code', async () => {
    const clientId = await newClient();
    const { challenge } = pkcePair();
    const redirect = await decide(
      owner.token,
      {
        response_type: 'code',
        client_id: clientId,
        redirect_uri: REDIRECT_URI,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state: 'denied-state',
      },
      'deny',
    );
    expect(redirect.searchParams.get('error')).toBe('access_denied');
    expect(redirect.searchParams.get('state')).toBe('denied-state');
    expect(redirect.searchParams.has('code')).toBe(false);
  });

  it("refuses another site's consent submission (CSRF) and the consent page cannot be framed", async () => {
    const clientId = await newClient();
    const { challenge } = pkcePair();
    const forged = await testApp.app.inject({
      method: 'POST',
      url: '/v1/oauth/consent',
      headers: { cookie: `ka_session=${owner.token}`, origin: 'https://attacker.example' },
      payload: {
        response_type: 'code',
        client_id: clientId,
        redirect_uri: REDIRECT_URI,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        decision: 'allow',
      },
    });
    expect(forged.statusCode).toBe(403);
    const page = await testApp.app.inject({
      url: '/authorize?client_id=x',
      headers: { accept: 'text/html' },
    });
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['x-frame-options']).toBeDefined();
  });

  it('lists connected clients to their person only, and disconnecting one stops its tokens at once', async () => {
    const clientId = await newClient('Open WebUI');
    const tokens = await exchange(await authorize(owner.token, clientId));
    const listed = await testApp.app.inject({
      url: '/v1/users/me/connected-clients',
      headers: bearer(owner.token),
    });
    expect(listed.statusCode).toBe(200);
    const connection = (
      listed.json().clients as { id: string; client_name: string; client_id: string }[]
    ).find((client) => client.client_id === clientId);
    expect(connection).toMatchObject({ client_name: 'Open WebUI' });
    if (connection === undefined) throw new Error('not listed');

    const stranger = await registerUser(testApp.app);
    const theirs = await testApp.app.inject({
      url: '/v1/users/me/connected-clients',
      headers: bearer(stranger.token),
    });
    expect(theirs.json().clients).toEqual([]);
    const notTheirs = await testApp.app.inject({
      method: 'DELETE',
      url: `/v1/users/me/connected-clients/${connection.id}`,
      headers: bearer(stranger.token),
    });
    expect(notTheirs.statusCode).toBe(404);
    expect((await mcpSearch(tokens.access_token, 'espresso')).status).toBe(200);

    const disconnected = await testApp.app.inject({
      method: 'DELETE',
      url: `/v1/users/me/connected-clients/${connection.id}`,
      headers: bearer(owner.token),
    });
    expect(disconnected.statusCode).toBe(204);
    expect((await mcpSearch(tokens.access_token, 'espresso')).status).toBe(401);
    const renewed = await refresh(tokens.refresh_token, clientId);
    expect(renewed.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('ends every connection when the person signs out everywhere', async () => {
    const person = await registerUser(testApp.app);
    const tokens = await exchange(await authorize(person.token, await newClient()));
    expect((await mcpSearch(tokens.access_token, 'espresso')).status).toBe(200);
    const out = await testApp.app.inject({
      method: 'DELETE',
      url: '/v1/auth/tokens',
      headers: bearer(person.token),
    });
    expect(out.statusCode).toBeLessThan(300);
    expect((await mcpSearch(tokens.access_token, 'espresso')).status).toBe(401);
  });

  it("refuses a person their team's directory deactivated, on the next call and at refresh", async () => {
    const { owner: directoryOwner, scimToken } = await team();
    const member = await joinedMember(testApp.app, directoryOwner.token);
    const memberEmail = (await testApp.app.inject({ url: '/v1/users/me', headers: bearer(member) })).json()
      .email as string;
    const clientId = await newClient();
    const tokens = await exchange(await authorize(member, clientId));
    expect((await mcpSearch(tokens.access_token, 'espresso')).status).toBe(200);

    const provisioned = await scim('POST', '/Users', scimToken, {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName: memberEmail,
      active: true,
    });
    expect(provisioned.statusCode, provisioned.body).toBe(201);
    const off = await scim('PATCH', `/Users/${provisioned.json().id}`, scimToken, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'replace', value: { active: false } }],
    });
    expect(off.statusCode, off.body).toBe(200);

    expect((await mcpSearch(tokens.access_token, 'espresso')).status).toBe(401);
    const renewed = await refresh(tokens.refresh_token, clientId);
    expect(renewed.json()).toMatchObject({ error: 'invalid_grant' });
  });
});

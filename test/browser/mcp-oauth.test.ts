import { createHash, randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOidcProvider, startFakeOidcProvider } from '../fakes/fake-oidc-provider.js';
import { LocalHttpServer, sendBody } from '../fakes/local-http-server.js';
import { browserTestsEnabled, DESKTOP, PHONE, type WatchedPage } from '../helpers/browser.js';
import {
  type BrowserService,
  createAccount,
  freePort,
  openFromMainNav,
  startBrowserService,
  TEST_PASSWORD,
} from '../helpers/browser-service.js';
import { expectNothingSideways, seriousViolations } from '../helpers/page-checks.js';

const ADA = 'ada@example.com';
const CLIENT_NAME = 'Claude Desktop';

/**
 * The MCP client's loopback redirect target (RFC 8252), as a desktop client listens for the
 * browser's return: records each query it receives and answers a plain page.
 */
async function startLoopbackCallback() {
  const server = await LocalHttpServer.start();
  const received: URLSearchParams[] = [];
  server.serve((request, response) => {
    const url = new URL(request.url ?? '/', server.url());
    if (url.pathname === '/callback') received.push(url.searchParams);
    sendBody(response, 200, '<!doctype html><title>Connected</title><p>You can close this window.</p>', {
      'content-type': 'text/html; charset=utf-8',
    });
  });
  return { server, received, redirectUri: server.url('/callback') };
}

/** A PKCE pair (RFC 7636, S256), as an MCP client makes one per authorization. */
function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

describe.skipIf(!browserTestsEnabled())('MCP clients connect with OAuth, in Chromium', () => {
  let app: BrowserService;
  let provider: FakeOidcProvider;
  let callback: Awaited<ReturnType<typeof startLoopbackCallback>>;
  /** Ada's desktop browser, kept from one test to the next (signed in by the first). */
  let watched: WatchedPage;
  let clientId: string;
  let accessToken: string;
  const mcpClients: Client[] = [];

  beforeAll(async () => {
    callback = await startLoopbackCallback();
    provider = await startFakeOidcProvider();
    // On a port known before it starts: PUBLIC_URL is the issuer, and `<PUBLIC_URL>/mcp` the resource.
    const port = await freePort();
    app = await startBrowserService({
      port,
      worker: false,
      env: {
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        // Single sign-on beside passwords: it too comes back to the consent page.
        OIDC_ISSUER: provider.issuer,
        OIDC_CLIENT_ID: provider.clientId,
        OIDC_CLIENT_SECRET: provider.clientSecret,
        OIDC_DISPLAY_NAME: 'Acme SSO',
      },
    });
    const setup = await app.open(DESKTOP);
    await createAccount(setup.page, ADA);
    await setup.close();
    watched = await app.open(DESKTOP, [callback.server.url()]);
  });
  afterAll(async () => {
    await Promise.all(mcpClients.map((client) => client.close()));
    await app?.close();
    await provider?.close();
    await callback?.server.close();
  });

  async function register(clientName: string): Promise<string> {
    const response = await fetch(`${app.origin}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [callback.redirectUri], client_name: clientName }),
    });
    expect(response.status, await response.clone().text()).toBe(201);
    return ((await response.json()) as { client_id: string }).client_id;
  }

  /** The address the client opens in the browser, as an MCP client builds it. */
  function authorizeUrl(client: string, state: string, challenge: string): string {
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: client,
      redirect_uri: callback.redirectUri,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state,
      scope: 'mcp',
      resource: `${app.origin}/mcp`,
    });
    return `/oauth/authorize?${query}`;
  }

  /** What the loopback callback received for `state`, once it has. */
  async function callbackFor(state: string): Promise<URLSearchParams> {
    await expect.poll(() => callback.received.some((query) => query.get('state') === state)).toBe(true);
    const query = callback.received.find((received) => received.get('state') === state);
    if (query === undefined) throw new Error(`no callback for ${state}`);
    return query;
  }

  /** `POST /mcp` with `token`: the status only (an initialize request). */
  async function mcpStatus(token: string): Promise<number> {
    const response = await fetch(`${app.origin}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'probe', version: '1' },
        },
      }),
    });
    await response.body?.cancel();
    return response.status;
  }

  it('signs in from the authorization link, allows, and the client uses /mcp with its token', async () => {
    const { page } = watched;
    clientId = await register(CLIENT_NAME);
    const { verifier, challenge } = pkce();
    const state = randomBytes(16).toString('base64url');

    // Signed out: the sign-in page, at the consent page's address.
    await page.goto(authorizeUrl(clientId, state, challenge));
    await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/authorize');
    await page.getByLabel('Email', { exact: true }).fill(ADA);
    await page.getByLabel('Password', { exact: true }).fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();

    // Signed in: the consent page itself, standalone.
    await page.getByRole('heading', { name: `Connect ${CLIENT_NAME}?`, level: 1 }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Main' }).count()).toBe(0);
    await page.getByText(ADA, { exact: true }).waitFor();
    await page.getByText(new URL(callback.redirectUri).host, { exact: true }).waitFor();
    const abilities = page.getByRole('list', { name: 'If you allow it, it can:' }).getByRole('listitem');
    expect(await abilities.count()).toBeGreaterThan(0);
    await page.getByText('cannot change documents or manage your team').waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Allow', exact: true }).click();
    const answer = await callbackFor(state);
    expect(answer.get('error')).toBeNull();
    expect(answer.get('iss')).toBe(app.origin);
    const code = answer.get('code');
    expect(code).toBeTruthy();
    // The browser is at the client's page now.
    await page.getByText('You can close this window.').waitFor();

    // The client exchanges the code, as its token request does (form-encoded, PKCE verifier).
    const exchanged = await fetch(`${app.origin}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: code ?? '',
        redirect_uri: callback.redirectUri,
        client_id: clientId,
        code_verifier: verifier,
      }),
    });
    expect(exchanged.status, await exchanged.clone().text()).toBe(200);
    const tokens = (await exchanged.json()) as { access_token: string; token_type: string; scope: string };
    expect(tokens.token_type).toBe('Bearer');
    accessToken = tokens.access_token;

    // The official SDK client reaches the MCP server with it.
    const client = new Client({ name: 'claude-desktop-stand-in', version: '1.0.0' });
    mcpClients.push(client);
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${app.origin}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${accessToken}` } },
      }),
    );
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['ask', 'fetch', 'search']);

    expect(watched.foreignRequests).toEqual([]);
    expect(watched.pageErrors).toEqual([]);
    expect(watched.dialogs).toEqual([]);
  });

  it('denies: the client is told access_denied, with its state', async () => {
    const { page } = watched;
    const { challenge } = pkce();
    const state = randomBytes(16).toString('base64url');
    await page.goto(authorizeUrl(clientId, state, challenge));
    await page.getByRole('heading', { name: `Connect ${CLIENT_NAME}?`, level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Deny', exact: true }).click();
    const answer = await callbackFor(state);
    expect(answer.get('error')).toBe('access_denied');
    expect(answer.get('code')).toBeNull();
    await page.getByText('You can close this window.').waitFor();
    expect(watched.pageErrors).toEqual([]);
  });

  it('lists the client on the Access tokens page, and disconnecting it stops its token', async () => {
    const { page } = watched;
    await page.goto('/');
    await openFromMainNav(page, 'Access tokens');
    const section = page.getByRole('region', { name: 'Connected clients' });
    await section.getByRole('heading', { name: 'Connected clients', level: 2 }).waitFor();
    const row = section.getByRole('row').filter({ hasText: CLIENT_NAME });
    await row.waitFor();
    // Only the allowed connection: the denied one made none.
    expect(await section.getByRole('button', { name: /^Disconnect / }).count()).toBe(1);
    expect(await seriousViolations(page)).toEqual([]);
    expect(await mcpStatus(accessToken)).toBe(200);

    await page.getByRole('button', { name: `Disconnect ${CLIENT_NAME}`, exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Disconnect this client?' });
    await dialog.getByRole('button', { name: 'Disconnect', exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });
    await row.waitFor({ state: 'detached' });
    await section.getByText('No connected clients.').waitFor();
    await expect.poll(() => mcpStatus(accessToken)).toBe(401);
    // The session that disconnected it is untouched.
    expect((await page.request.get('/v1/users/me')).status()).toBe(200);
    expect(watched.pageErrors).toEqual([]);
    expect(watched.dialogs).toEqual([]);
  });

  it('signs in with single sign-on back to the consent page, which fits a phone; an unusable request says so', async () => {
    const email = 'grace@acme.example';
    provider.setUser({ sub: 'acme-grace', email, email_verified: true, name: 'Grace' });
    const phone = await app.open(PHONE, [callback.server.url(), provider.issuer]);
    const { page } = phone;
    const longName = 'Documentation assistant for the platform engineering team (nightly build)';
    const longClient = await register(longName);
    const { challenge } = pkce();
    await page.goto(authorizeUrl(longClient, 'phone-state', challenge));
    await page.getByRole('link', { name: 'Sign in with Acme SSO', exact: true }).click();
    // Through the provider and back to the same request, signed in as the provider's person.
    await page.getByRole('heading', { name: `Connect ${longName}?`, level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/authorize');
    expect(new URL(page.url()).searchParams.get('client_id')).toBe(longClient);
    await page.getByText(email, { exact: true }).waitFor();
    for (const name of ['Allow', 'Deny']) {
      const box = await page.getByRole('button', { name, exact: true }).boundingBox();
      expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(PHONE.width);
    }
    await expectNothingSideways(page);
    expect(await seriousViolations(page)).toEqual([]);

    // The wrong account: sign out without losing the request, and come back to it as another.
    await page.getByRole('button', { name: 'Use another account', exact: true }).click();
    await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
    expect(new URL(page.url()).searchParams.get('client_id')).toBe(longClient);
    await page.getByLabel('Email', { exact: true }).fill(ADA);
    await page.getByLabel('Password', { exact: true }).fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: `Connect ${longName}?`, level: 1 }).waitFor();
    await page.getByText(ADA, { exact: true }).waitFor();

    // A link whose client is not registered here: why, and nothing to press.
    await page.goto(`/authorize?${new URLSearchParams({ response_type: 'code', client_id: 'unknown' })}`);
    await page.getByRole('heading', { name: 'This connection request cannot be used', level: 1 }).waitFor();
    await page.getByRole('alert').filter({ hasText: 'not registered here' }).waitFor();
    expect(await page.getByRole('button', { name: 'Allow' }).count()).toBe(0);
    await expectNothingSideways(page);
    expect(phone.foreignRequests).toEqual([]);
    expect(phone.pageErrors).toEqual([]);
  });
});

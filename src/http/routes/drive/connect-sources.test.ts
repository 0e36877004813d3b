import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DRIVE_MIME_TYPES, type FakeDriveServer } from '../../../../test/fakes/fake-drive-server.js';
import type { FakeGoogleOAuthServer } from '../../../../test/fakes/fake-google-oauth-server.js';
import {
  type FakeOAuthProviders,
  GOOGLE_CLIENT_ID,
  GOOGLE_CLIENT_SECRET,
  SLACK_CLIENT_ID,
  SLACK_CLIENT_SECRET,
  startFakeOAuthProviders,
} from '../../../../test/fakes/fake-oauth-providers.js';
import type { FakeSlackServer } from '../../../../test/fakes/fake-slack-server.js';
import { bearer, registerUser, startTestApp, type TestApp } from '../../../../test/helpers/test-app.js';

const PUBLIC_URL = 'http://127.0.0.1:8000';
const DRIVE_REDIRECT = `${PUBLIC_URL}/connectors/google-drive/callback`;

interface DriveListing {
  folder_id: string;
  files: { id: string; name: string; is_folder: boolean; mime_type: string; url: string | null }[];
  next_page_token: string | null;
}

/**
 * What the web app does to connect sources, as API calls: the OAuth clients it may use, Google's
 * authorization-code flow with PKCE through the token proxy, browsing Drive with the token it got,
 * and installing the Slack bot with the code Slack's redirect brought back.
 */
describe('connecting Google Drive and Slack through the API', () => {
  let providers: FakeOAuthProviders;
  let drive: FakeDriveServer;
  let google: FakeGoogleOAuthServer;
  let slack: FakeSlackServer;
  let testApp: TestApp;
  let bare: TestApp;

  beforeAll(async () => {
    providers = await startFakeOAuthProviders(PUBLIC_URL);
    ({ drive, google, slack } = providers);
    testApp = await startTestApp({ env: providers.env });
    bare = await startTestApp();
  });
  afterAll(async () => {
    await testApp?.close();
    await bare?.close();
    await providers?.close();
  });

  it('tells a signed-in browser the public OAuth clients, never a secret; nothing when unconfigured', async () => {
    const user = await registerUser(testApp.app);
    const response = await testApp.app.inject({
      method: 'GET',
      url: '/v1/oauth/providers',
      headers: bearer(user.token),
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      google_drive: {
        client_id: GOOGLE_CLIENT_ID,
        authorize_url: google.authorizeUrl,
        token_url: google.tokenUrl,
        redirect_uri: DRIVE_REDIRECT,
        scope: 'https://www.googleapis.com/auth/drive.readonly',
      },
      slack: {
        client_id: SLACK_CLIENT_ID,
        authorize_url: slack.authorizeUrl,
        redirect_uri: null,
        scope:
          'app_mentions:read,channels:history,chat:write,groups:history,im:history,mpim:history,users:read,users:read.email',
      },
    });
    expect(response.body).not.toContain(GOOGLE_CLIENT_SECRET);
    expect(response.body).not.toContain(SLACK_CLIENT_SECRET);

    expect((await testApp.app.inject({ method: 'GET', url: '/v1/oauth/providers' })).statusCode).toBe(401);
    const other = await registerUser(bare.app);
    const unconfigured = await bare.app.inject({
      method: 'GET',
      url: '/v1/oauth/providers',
      headers: bearer(other.token),
    });
    expect(unconfigured.json()).toEqual({ google_drive: null, slack: null });
  });

  it('runs the PKCE flow through the token proxy, then browses Drive with the token it got', async () => {
    // `root` is Drive's alias of My Drive's top folder.
    const handbook = drive.addFolder({ name: 'Handbook', parents: ['root'] });
    drive.addFile({ name: 'zebra.txt', mimeType: 'text/plain', content: 'z', parents: ['root'] });
    drive.addFile({
      name: 'Onboarding',
      mimeType: DRIVE_MIME_TYPES.document,
      content: '# Hi',
      parents: [handbook],
    });
    const user = await registerUser(testApp.app);

    // The browser: a verifier it keeps, its challenge in the authorize URL, Google's redirect back.
    const verifier = randomBytes(32).toString('base64url');
    const authorize = new URL(google.authorizeUrl);
    authorize.search = new URLSearchParams({
      client_id: GOOGLE_CLIENT_ID,
      redirect_uri: DRIVE_REDIRECT,
      response_type: 'code',
      scope: 'https://www.googleapis.com/auth/drive.readonly',
      state: 'state-1',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    }).toString();
    const redirect = await fetch(authorize, { redirect: 'manual' });
    const back = new URL(redirect.headers.get('location') ?? '');
    expect(back.searchParams.get('state')).toBe('state-1');
    const code = back.searchParams.get('code') ?? '';

    const exchange = (codeVerifier: string, authorizationCode = code) =>
      testApp.app.inject({
        method: 'POST',
        url: '/v1/oauth-proxy/token',
        headers: bearer(user.token),
        payload: {
          endpoint: google.tokenUrl,
          headers: { content_type: 'application/x-www-form-urlencoded', x_connector: 'googledrive' },
          body: new URLSearchParams({
            grant_type: 'authorization_code',
            code: authorizationCode,
            code_verifier: codeVerifier,
            redirect_uri: DRIVE_REDIRECT,
          }).toString(),
        },
      });
    // A stolen code is useless without the verifier the browser kept.
    const wrongVerifier = await exchange(randomBytes(32).toString('base64url'));
    expect(wrongVerifier.statusCode).toBe(400);
    expect(wrongVerifier.json()).toMatchObject({ error: 'invalid_grant' });

    const verifierOnly = randomBytes(32).toString('base64url');
    const second = await fetch(
      authorize.href
        .replace(
          /code_challenge=[^&]+/,
          `code_challenge=${createHash('sha256').update(verifierOnly).digest('base64url')}`,
        )
        .replace('state-1', 'state-2'),
      { redirect: 'manual' },
    );
    const secondCode = new URL(second.headers.get('location') ?? '').searchParams.get('code') ?? '';
    const token = await exchange(verifierOnly, secondCode);
    expect(token.statusCode).toBe(200);
    const accessToken = (token.json() as { access_token: string }).access_token;
    // The secret was added by the service, on the server side.
    expect(google.tokenRequests.at(-1)).toMatchObject({ client_secret: GOOGLE_CLIENT_SECRET });

    const root = await testApp.app.inject({
      method: 'GET',
      url: '/v2/drive/browse',
      headers: { ...bearer(user.token), 'x-drive-authorization': `Bearer ${accessToken}` },
    });
    expect(root.statusCode).toBe(200);
    const listing = root.json() as DriveListing;
    expect(listing.folder_id).toBe('root');
    // Folders first, then files by name.
    expect(listing.files.map((file) => [file.name, file.is_folder])).toEqual([
      ['Handbook', true],
      ['zebra.txt', false],
    ]);

    const inside = await testApp.app.inject({
      method: 'GET',
      url: `/v2/drive/browse?folder_id=${handbook}`,
      headers: { ...bearer(user.token), 'x-drive-authorization': accessToken },
    });
    expect((inside.json() as DriveListing).files).toEqual([
      expect.objectContaining({ name: 'Onboarding', mime_type: DRIVE_MIME_TYPES.document, is_folder: false }),
    ]);
  });

  it('pages through a large folder and says in words when Drive refuses', async () => {
    const user = await registerUser(testApp.app);
    const big = drive.addFolder({ name: 'Archive' });
    for (let index = 0; index < 5; index += 1) {
      drive.addFile({ name: `report-${index}.txt`, mimeType: 'text/plain', content: 'r', parents: [big] });
    }
    drive.setPageSize(3);
    const browse = (query: string, token = drive.accessToken) =>
      testApp.app.inject({
        method: 'GET',
        url: `/v2/drive/browse?${query}`,
        headers: { ...bearer(user.token), 'x-drive-authorization': token },
      });
    try {
      const first = (await browse(`folder_id=${big}`)).json() as DriveListing;
      expect(first.files).toHaveLength(3);
      expect(first.next_page_token).not.toBeNull();
      const rest = (
        await browse(`folder_id=${big}&page_token=${encodeURIComponent(first.next_page_token ?? '')}`)
      ).json() as DriveListing;
      expect(rest.files).toHaveLength(2);
      expect(rest.next_page_token).toBeNull();
    } finally {
      drive.setPageSize(undefined);
    }

    const expired = await browse('folder_id=root', 'ya29.expired-token');
    expect(expired.statusCode).toBe(400);
    expect(expired.json()).toEqual({
      detail:
        'Google Drive did not accept the access token in x-drive-authorization (expired or revoked): connect Google Drive again',
    });
    drive.failNext(big, { status: 429, retryAfter: 7 });
    const slowDown = await browse(`folder_id=${big}`);
    expect(slowDown.statusCode).toBe(429);
    expect(slowDown.headers['retry-after']).toBe('7');

    const noHeader = await testApp.app.inject({
      method: 'GET',
      url: '/v2/drive/browse',
      headers: bearer(user.token),
    });
    expect(noHeader.statusCode).toBe(422);
    const signedOut = await testApp.app.inject({
      method: 'GET',
      url: '/v2/drive/browse',
      headers: { 'x-drive-authorization': drive.accessToken },
    });
    expect(signedOut.statusCode).toBe(401);
  });

  it("installs the Slack bot for the caller's team with the code Slack's redirect brought back", async () => {
    const user = await registerUser(testApp.app);
    slack.approveNextInstall(SLACK_CLIENT_ID, { teamId: 'T0WEBAPP1', teamName: 'Acme Robotics' });
    const visit = await fetch(
      `${slack.authorizeUrl}?client_id=${SLACK_CLIENT_ID}&scope=chat:write&state=s1&redirect_uri=${encodeURIComponent(`${PUBLIC_URL}/connectors/slack/callback`)}`,
      { redirect: 'manual' },
    );
    const code = new URL(visit.headers.get('location') ?? '').searchParams.get('code') ?? '';
    const install = (token: string, body: unknown) =>
      testApp.app.inject({
        method: 'POST',
        url: '/v1/chatapp/install',
        headers: bearer(token),
        payload: body as Record<string, unknown>,
      });

    const installed = await install(user.token, { code });
    expect(installed.statusCode).toBe(200);
    expect(installed.json()).toEqual({
      status: 'installed',
      connector_id: expect.any(Number),
      slack_team_id: 'T0WEBAPP1',
      slack_team_name: 'Acme Robotics',
    });
    const listed = await testApp.app.inject({
      method: 'GET',
      url: '/v1/connectors',
      headers: bearer(user.token),
    });
    const chatapp = (
      listed.json() as { connectors: { slug: string; config: Record<string, unknown> }[] }
    ).connectors.find((connector) => connector.slug === 'chatapp');
    expect(chatapp?.config).toMatchObject({ slack_team_id: 'T0WEBAPP1', slack_team_name: 'Acme Robotics' });
    expect(listed.body).not.toContain('xoxb-');

    // Codes are single-use; another team cannot take the workspace.
    const reused = await install(user.token, { code });
    expect(reused.statusCode).toBe(502);
    expect((reused.json() as { detail: string }).detail).toContain('invalid_code');
    const other = await registerUser(testApp.app);
    slack.approveNextInstall(SLACK_CLIENT_ID, { teamId: 'T0WEBAPP1', teamName: 'Acme Robotics' });
    const again = await fetch(
      `${slack.authorizeUrl}?client_id=${SLACK_CLIENT_ID}&scope=chat:write&redirect_uri=${encodeURIComponent(`${PUBLIC_URL}/x`)}`,
      {
        redirect: 'manual',
      },
    );
    const otherCode = new URL(again.headers.get('location') ?? '').searchParams.get('code') ?? '';
    const taken = await install(other.token, { code: otherCode });
    expect(taken.statusCode).toBe(409);
    expect(taken.json()).toEqual({ detail: 'This Slack workspace is already connected to another team' });

    expect((await install(user.token, {})).statusCode).toBe(422);
    const someone = await registerUser(bare.app);
    const unconfigured = await bare.app.inject({
      method: 'POST',
      url: '/v1/chatapp/install',
      headers: bearer(someone.token),
      payload: { code: 'anything' },
    });
    expect(unconfigured.statusCode).toBe(503);
    expect((unconfigured.json() as { detail: string }).detail).toContain('SLACK_CLIENT_ID');
  });
});

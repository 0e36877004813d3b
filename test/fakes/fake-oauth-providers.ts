import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FakeDriveServer } from './fake-drive-server.js';
import { FakeGoogleOAuthServer } from './fake-google-oauth-server.js';
import { FakeSlackServer } from './fake-slack-server.js';

export const GOOGLE_CLIENT_ID = 'web-app-client.apps.googleusercontent.example';
export const GOOGLE_CLIENT_SECRET = 'GOCSPX-web-app-test-secret-71c4';
export const SLACK_CLIENT_ID = '5555555555.6666666666';
export const SLACK_CLIENT_SECRET = 'slack-web-app-test-secret-9d2e';

/** Google (OAuth and Drive) and Slack as a browser connecting sources meets them, with the service's settings for them. */
export interface FakeOAuthProviders {
  readonly drive: FakeDriveServer;
  readonly google: FakeGoogleOAuthServer;
  readonly slack: FakeSlackServer;
  /** What the service needs to use them (PUBLIC_URL, the clients, the fakes' addresses, their CA). */
  readonly env: Record<string, string>;
  /** The fakes' origins, which the browser is sent to and back from. */
  readonly origins: string[];
  close(): Promise<void>;
}

/**
 * Starts the fakes for a service at `publicUrl`: Google's tokens are good at the fake Drive, and
 * Slack's app sends the browser back to `slackRedirectUri` when the authorize page is not given one
 * (as Slack's configured redirect URL does).
 */
export async function startFakeOAuthProviders(
  publicUrl: string,
  slackRedirectUri?: string,
): Promise<FakeOAuthProviders> {
  const drive = await FakeDriveServer.start();
  const google = await FakeGoogleOAuthServer.start(
    {
      clientId: GOOGLE_CLIENT_ID,
      clientSecret: GOOGLE_CLIENT_SECRET,
      redirectUri: `${publicUrl}/connectors/google-drive/callback`,
    },
    (token) => drive.addAccessToken(token),
  );
  const slack = await FakeSlackServer.start();
  slack.registerApp({
    clientId: SLACK_CLIENT_ID,
    clientSecret: SLACK_CLIENT_SECRET,
    ...(slackRedirectUri === undefined ? {} : { redirectUri: slackRedirectUri }),
  });
  // The token proxy calls only https: it must trust the fake token endpoint's certificate.
  const caDirectory = mkdtempSync(path.join(tmpdir(), 'fake-oauth-providers-'));
  const caFile = path.join(caDirectory, 'ca.pem');
  writeFileSync(caFile, google.ca);
  return {
    drive,
    google,
    slack,
    env: {
      PUBLIC_URL: publicUrl,
      GOOGLE_CLIENT_ID,
      GOOGLE_CLIENT_SECRET,
      GOOGLE_AUTH_URL: google.authorizeUrl,
      GOOGLE_TOKEN_URL: google.tokenUrl,
      GOOGLE_DRIVE_API_URL: drive.url,
      OAUTH_PROXY_ALLOW_PRIVATE_NETWORK: 'true',
      OAUTH_PROXY_CA_FILE: caFile,
      SLACK_CLIENT_ID,
      SLACK_CLIENT_SECRET,
      SLACK_API_URL: slack.url,
      SLACK_AUTHORIZE_URL: slack.authorizeUrl,
    },
    origins: [new URL(google.authorizeUrl).origin, new URL(slack.authorizeUrl).origin],
    close: async () => {
      await Promise.all([drive.close(), google.close(), slack.close()]);
      rmSync(caDirectory, { recursive: true, force: true });
    },
  };
}

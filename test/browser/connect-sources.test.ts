import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DRIVE_MIME_TYPES, type FakeDriveServer } from '../fakes/fake-drive-server.js';
import type { FakeGoogleOAuthServer } from '../fakes/fake-google-oauth-server.js';
import {
  type FakeOAuthProviders,
  GOOGLE_CLIENT_SECRET,
  SLACK_CLIENT_ID,
  startFakeOAuthProviders,
} from '../fakes/fake-oauth-providers.js';
import type { FakeSlackServer } from '../fakes/fake-slack-server.js';
import { browserTestsEnabled, DESKTOP, PHONE, type WatchedPage } from '../helpers/browser.js';
import {
  type BrowserService,
  createAccount,
  freePort,
  openFromMainNav,
  startBrowserService,
} from '../helpers/browser-service.js';

async function openConnectors(page: Page): Promise<void> {
  await openFromMainNav(page, 'Connectors');
  await page.getByRole('heading', { name: 'Google Drive', level: 2 }).waitFor();
}

/** Only page loads went to the fake providers (the sign-in trips); every request of the app's own went to the service. */
function expectOnlyNavigationsOutside(watched: WatchedPage): void {
  expect(watched.foreignRequests).toEqual([]);
  for (const request of watched.allowedForeignRequests) expect(request).toMatch(/^GET document /);
  expect(watched.pageErrors).toEqual([]);
}

describe.skipIf(!browserTestsEnabled())('connecting Google Drive and Slack in Chromium', () => {
  let providers: FakeOAuthProviders;
  let drive: FakeDriveServer;
  let google: FakeGoogleOAuthServer;
  let slack: FakeSlackServer;
  let app: BrowserService;
  let providerOrigins: string[];

  beforeAll(async () => {
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    // No SLACK_REDIRECT_URI: Slack sends the browser to the app's configured redirect URL.
    providers = await startFakeOAuthProviders(origin, `${origin}/connectors/slack/callback`);
    ({ drive, google, slack, origins: providerOrigins } = providers);
    const handbook = drive.addFolder({ name: 'Handbook', parents: ['root'] });
    drive.addFile({
      name: 'Onboarding',
      mimeType: DRIVE_MIME_TYPES.document,
      content: '# Onboarding\n\nNew engineers pair with a buddy for their first two weeks.',
      parents: [handbook],
    });
    drive.addFile({
      name: 'Roadmap.md',
      mimeType: 'text/markdown',
      content: '# Roadmap\n\nThe mobile app ships offline mode in the spring release.',
      parents: ['root'],
    });
    drive.addFile({
      name: 'Old notes.txt',
      mimeType: 'text/plain',
      content: 'not picked',
      parents: ['root'],
    });
    app = await startBrowserService({
      port,
      worker: true,
      env: providers.env,
    });
  });
  afterAll(async () => {
    await app?.close();
    await providers?.close();
  });

  it('connects Google Drive with PKCE, picks a file in a folder and one at the top, indexes them, then adds the Slack bot (desktop)', async () => {
    const watched = await app.open(DESKTOP, providerOrigins);
    const { page } = watched;
    await createAccount(page, 'drive-desktop@example.com');
    await openConnectors(page);

    await page.getByRole('button', { name: 'Connect Google Drive', exact: true }).click();
    await page.getByRole('heading', { name: 'Choose from Google Drive' }).waitFor();
    // Back on the app with the code spent and gone from the address.
    expect(new URL(page.url()).pathname).toBe('/connectors');
    expect(page.url()).not.toContain('code=');
    const authorization = google.authorizations.at(-1);
    expect(authorization).toMatchObject({ code_challenge_method: 'S256', access_type: 'online' });
    expect(google.tokenRequests.at(-1)).toMatchObject({
      grant_type: 'authorization_code',
      client_secret: GOOGLE_CLIENT_SECRET,
      code_verifier: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });

    const list = page.getByRole('list', { name: 'In My Drive' });
    await list.getByText('Roadmap.md').waitFor();
    // Folders first, then files by name.
    expect(await list.getByRole('listitem').allInnerTexts()).toEqual([
      expect.stringMatching(/^Handbook/),
      expect.stringMatching(/^Old notes\.txt/),
      expect.stringMatching(/^Roadmap\.md/),
    ]);
    await page.getByRole('button', { name: 'Open Handbook' }).click();
    await page.getByLabel('Onboarding', { exact: true }).check();
    await page
      .getByRole('navigation', { name: 'Drive folders' })
      .getByRole('button', { name: 'My Drive' })
      .click();
    await page.getByLabel('Roadmap.md', { exact: true }).check();
    await page.getByText('2 selected').waitFor();

    const results = await new AxeBuilder({ page }).analyze();
    const severe = results.violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map((violation) => `${violation.id} (${violation.nodes.length})`);
    expect(severe).toEqual([]);

    await page.getByRole('button', { name: 'Index selected', exact: true }).click();
    await page.getByText('Indexing completed: 2 indexed.').waitFor({ timeout: 120_000 });
    expect(await page.getByRole('progressbar', { name: 'Indexing progress' }).getAttribute('value')).toBe(
      '2',
    );
    // Only what was picked was read from Drive.
    expect(
      drive.requests.filter((request) => request.route === 'export' || request.route === 'media'),
    ).toHaveLength(2);
    await page
      .getByRole('list', { name: 'Google Drive connector' })
      .getByText('2', { exact: true })
      .waitFor();

    slack.approveNextInstall(SLACK_CLIENT_ID, { teamId: 'T0BROWSER', teamName: 'Acme Robotics' });
    await page.getByRole('button', { name: 'Add to Slack', exact: true }).click();
    await page.getByText('Installed in Acme Robotics.').waitFor();
    await page.getByText('The bot answers in the workspace Acme Robotics').waitFor();
    expect(slack.authorizations.at(-1)).toMatchObject({
      client_id: SLACK_CLIENT_ID,
      scope:
        'app_mentions:read,channels:history,chat:write,groups:history,im:history,mpim:history,users:read,users:read.email',
    });

    await openFromMainNav(page, 'Documents');
    for (const title of ['Onboarding', 'Roadmap']) {
      await page.getByRole('row').filter({ hasText: title }).filter({ hasText: 'indexed' }).first().waitFor();
    }
    expect(await page.getByRole('row').filter({ hasText: 'Old notes' }).count()).toBe(0);
    expectOnlyNavigationsOutside(watched);
    expect(watched.allowedForeignRequests).toHaveLength(2);
  });

  it('says so when access is refused, when the answer is not for this tab and when Google stops taking the token (375 px, by keyboard)', async () => {
    const watched = await app.open(PHONE, providerOrigins);
    const { page } = watched;
    await createAccount(page, 'drive-phone@example.com');
    await openConnectors(page);

    google.denyNext();
    await page.getByRole('button', { name: 'Connect Google Drive', exact: true }).focus();
    await page.keyboard.press('Enter');
    await page.getByText('Google Drive was not connected: access was not allowed.').waitFor();

    // A callback this tab did not ask for (a link from someone else) connects nothing.
    const exchangesBefore = slack.callsTo('oauth.v2.access').length;
    await page.goto('/connectors/slack/callback?code=someone-elses-code&state=forged');
    await page
      .getByText(
        'Slack was not connected: this answer does not belong to a request from this tab. Connect again.',
      )
      .waitFor();
    expect(slack.callsTo('oauth.v2.access')).toHaveLength(exchangesBefore);

    await page.getByRole('button', { name: 'Add to Slack', exact: true }).focus();
    await page.keyboard.press('Enter');
    await page.getByText('Slack was not connected: access was not allowed.').waitFor();

    await page.getByRole('button', { name: 'Connect Google Drive', exact: true }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Choose from Google Drive' }).waitFor();
    await page.getByLabel('Roadmap.md', { exact: true }).focus();
    await page.keyboard.press('Space');
    await page.getByText('1 selected').waitFor();
    // Google revokes the token (the person signed out of Google, an admin ended it).
    for (const token of google.issuedTokens) drive.revokeAccessToken(token);
    await page.getByRole('button', { name: 'Open Handbook' }).focus();
    await page.keyboard.press('Enter');
    await page
      .getByText(
        'Google Drive did not accept the access token in x-drive-authorization (expired or revoked): connect Google Drive again',
      )
      .waitFor();
    await page.getByRole('button', { name: 'Connect Google Drive', exact: true }).waitFor();
    const width = await page.evaluate<number>('document.documentElement.scrollWidth');
    expect(width).toBeLessThanOrEqual(PHONE.width);
    expectOnlyNavigationsOutside(watched);
  });
});

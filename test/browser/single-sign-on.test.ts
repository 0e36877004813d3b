import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOidcProvider, startFakeOidcProvider } from '../fakes/fake-oidc-provider.js';
import { browserTestsEnabled, DESKTOP, PHONE, type WatchedPage } from '../helpers/browser.js';
import { type BrowserService, freePort, startBrowserService } from '../helpers/browser-service.js';
import { seriousViolations } from '../helpers/page-checks.js';

const SSO_BUTTON = 'Sign in with Acme SSO';
const UNVERIFIED_WORDS =
  'Your identity provider has not verified your e-mail address, so you were not signed in. Ask your IT team to verify it.';

/** The service on a port known before it starts (its redirect URI is `<PUBLIC_URL>/v1/auth/oidc/callback`). */
async function serviceWithSso(provider: FakeOidcProvider, env: Record<string, string> = {}) {
  const port = await freePort();
  return startBrowserService({
    port,
    worker: false,
    env: {
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      OIDC_ISSUER: provider.issuer,
      OIDC_CLIENT_ID: provider.clientId,
      OIDC_CLIENT_SECRET: provider.clientSecret,
      OIDC_DISPLAY_NAME: 'Acme SSO',
      ...env,
    },
  });
}

/** Only page loads went to the provider (the trip there and back); nothing else left the service. */
function expectOnlyTripsToProvider(watched: WatchedPage): void {
  expect(watched.foreignRequests).toEqual([]);
  for (const request of watched.allowedForeignRequests) expect(request).toMatch(/^GET document /);
  expect(watched.pageErrors).toEqual([]);
  expect(watched.dialogs).toEqual([]);
}

describe.skipIf(!browserTestsEnabled())('single sign-on with OpenID Connect, in Chromium', () => {
  let provider: FakeOidcProvider;
  let app: BrowserService;

  beforeAll(async () => {
    provider = await startFakeOidcProvider();
    app = await serviceWithSso(provider);
  });
  afterAll(async () => {
    await app?.close();
    await provider?.close();
  });

  it('signs in through the provider from the button and lands on the ask page', async () => {
    const email = 'ada@acme.example';
    provider.setUser({ sub: 'acme-ada', email, email_verified: true, name: 'Ada' });
    const watched = await app.open(DESKTOP, [provider.issuer]);
    const { page } = watched;
    await page.goto('/');
    const button = page.getByRole('link', { name: SSO_BUTTON, exact: true });
    await button.waitFor();
    // Passwords are still on beside it.
    await page.getByLabel('Password', { exact: true }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    // Redirects are not routed through the page's request filter: watch them go by instead.
    const visited: string[] = [];
    page.on('request', (request) => visited.push(request.url()));
    await button.click();
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    expect(visited.some((url) => url.startsWith(`${provider.issuer}/authorize?`))).toBe(true);
    expect(new URL(page.url()).pathname).toBe('/');
    expect(new URL(page.url()).search).toBe('');
    await page.getByLabel('Ask a question').waitFor();
    await page.getByText(email, { exact: true }).waitFor();
    const me = await page.request.get('/v1/users/me');
    expect(me.status()).toBe(200);
    expect(((await me.json()) as { email: string; email_verified: boolean }).email_verified).toBe(true);
    expectOnlyTripsToProvider(watched);
  });

  it('says in words why an unverified address was not signed in, once', async () => {
    provider.setUser({ sub: 'acme-bob', email: 'bob@acme.example', email_verified: false });
    provider.misbehave('unverified_email');
    try {
      const watched = await app.open(DESKTOP, [provider.issuer]);
      const { page } = watched;
      await page.goto('/');
      await page.getByRole('link', { name: SSO_BUTTON, exact: true }).click();
      const alert = page.getByRole('alert').filter({ hasText: UNVERIFIED_WORDS });
      await alert.waitFor();
      expect(await page.getByRole('heading', { name: 'Sign in', level: 1 }).count()).toBe(1);
      // The reason is not left in the address bar: a reload shows the sign-in page without it.
      await expect.poll(() => new URL(page.url()).searchParams.has('sso_error')).toBe(false);
      expect((await page.request.get('/v1/users/me')).status()).toBe(401);
      expect(await seriousViolations(page)).toEqual([]);
      await page.reload();
      await page.getByRole('link', { name: SSO_BUTTON, exact: true }).waitFor();
      expect(await page.getByRole('alert').count()).toBe(0);
      expectOnlyTripsToProvider(watched);
    } finally {
      provider.misbehave(null);
    }
  });

  it('offers only the button when passwords are off, and signs in with it (375 px)', async () => {
    const ssoOnly = await serviceWithSso(provider, { PASSWORD_SIGN_IN: 'false' });
    try {
      const email = 'carol@acme.example';
      provider.setUser({ sub: 'acme-carol', email, email_verified: true });
      const watched = await ssoOnly.open(PHONE, [provider.issuer]);
      const { page } = watched;
      await page.goto('/');
      const button = page.getByRole('link', { name: SSO_BUTTON, exact: true });
      await button.waitFor();
      expect(await page.getByLabel('Password').count()).toBe(0);
      expect(await page.getByLabel('Email').count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Create account' }).count()).toBe(0);
      expect(await seriousViolations(page)).toEqual([]);
      const box = await button.boundingBox();
      expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(PHONE.width);

      await button.click();
      await page.getByRole('navigation', { name: 'Main' }).waitFor();
      await page.getByText(email, { exact: true }).waitFor();
      expectOnlyTripsToProvider(watched);
    } finally {
      await ssoOnly.close();
    }
  });
});

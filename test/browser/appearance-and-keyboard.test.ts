import { AxeBuilder } from '@axe-core/playwright';
import type { FileChooser, Locator, Page } from 'playwright-core';
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

const QUESTION = 'How do I descale the espresso machine?';
const CITED_PASSAGE = 'Descale the espresso machine every two months';

/** The serious and critical violations axe finds on the page as it is, as `label: rule (nodes)`. */
async function severeViolations(page: Page, label: string): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${label}: ${violation.id} (${violation.nodes.map((node) => node.target.join(' ')).join(', ')})`,
    );
}

/** The colours the page's body and <main> are painted with (computed, so after the media queries). */
function paintedColours(page: Page): Promise<{ body: string; text: string; main: string }> {
  return page.evaluate<{ body: string; text: string; main: string }>(`(() => {
    const body = getComputedStyle(document.body);
    const main = document.querySelector('main');
    return {
      body: body.backgroundColor,
      text: body.color,
      main: main === null ? '' : getComputedStyle(main).color,
    };
  })()`);
}

/** What has focus, and whether it shows it: an outline or a box-shadow, inside the viewport's width. */
interface Focused {
  readonly description: string;
  readonly isBody: boolean;
  readonly indicated: boolean;
  readonly withinWidth: boolean;
}

const FOCUSED = `(() => {
  const element = document.activeElement;
  if (element === null || element === document.body) {
    return { description: 'body', isBody: true, indicated: false, withinWidth: true };
  }
  const style = getComputedStyle(element);
  const outline = style.outlineStyle !== 'none' && Number.parseFloat(style.outlineWidth) > 0;
  const shadow = style.boxShadow !== '' && style.boxShadow !== 'none';
  const rect = element.getBoundingClientRect();
  const name = (element.getAttribute('aria-label') ?? element.textContent ?? '').trim().slice(0, 60);
  return {
    description: element.tagName.toLowerCase() + (element.id === '' ? '' : '#' + element.id) + ' "' + name + '"',
    isBody: false,
    indicated: outline || shadow,
    withinWidth: rect.left >= -1 && rect.right <= window.innerWidth + 1,
  };
})()`;

/** Whether `target` (one of the elements it matches) has focus. */
function hasFocus(target: Locator): Promise<boolean> {
  return target.evaluateAll((elements) =>
    elements.includes(
      (globalThis as unknown as { document: { activeElement: (typeof elements)[number] | null } }).document
        .activeElement as (typeof elements)[number],
    ),
  );
}

/**
 * Presses Tab (Shift+Tab with `backwards`) until `target` has focus, checking at every stop that the
 * focused control shows its focus (outline or box-shadow) and lies within the viewport's width.
 */
async function tabTo(page: Page, target: Locator, { backwards = false, max = 60 } = {}): Promise<void> {
  const passed: string[] = [];
  for (let presses = 0; presses < max; presses += 1) {
    await page.keyboard.press(backwards ? 'Shift+Tab' : 'Tab');
    const focused = await page.evaluate<Focused>(FOCUSED);
    passed.push(focused.description);
    if (!focused.isBody) {
      expect(focused.indicated, `no visible focus on ${focused.description}`).toBe(true);
      expect(focused.withinWidth, `${focused.description} is outside the viewport's width`).toBe(true);
    }
    if (await hasFocus(target)) return;
  }
  throw new Error(
    `${max} presses of ${backwards ? 'Shift+Tab' : 'Tab'} never reached ${target}: ${passed.join(' → ')}`,
  );
}

/** The document's page, opened at the cited passage: that passage is marked and has focus. */
async function expectCitedPassage(page: Page): Promise<void> {
  await page.getByRole('heading', { name: ESPRESSO_CARE.title, level: 1 }).waitFor();
  const passage = new URL(page.url()).searchParams.get('passage');
  expect(passage).toMatch(/^\d+$/);
  const marked = page.locator('.passages mark');
  await marked.first().waitFor();
  // Only the cited passage is marked: each of its blocks (prose, code) in a mark of its own.
  expect(await marked.count()).toBe(await page.locator('.passage-cited mark').count());
  expect(await marked.first().textContent()).toContain(CITED_PASSAGE);
  await expect
    .poll(() => page.evaluate<string>('document.activeElement?.id ?? ""'))
    .toBe(`passage-${passage}`);
}

describe.skipIf(!browserTestsEnabled())('appearance (dark mode) and keyboard-only use, in Chromium', () => {
  let app: BrowserService;
  beforeAll(async () => {
    app = await startBrowserService({ worker: true });
  });
  afterAll(() => app?.close());

  it('follows prefers-color-scheme: dark, with no serious or critical violation on sign-in, ask and documents (axe)', async () => {
    const { page, pageErrors } = await app.open();
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto('/');
    await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
    const light = await paintedColours(page);

    await page.emulateMedia({ colorScheme: 'dark' });
    await expect.poll(() => paintedColours(page).then((colours) => colours.body)).not.toBe(light.body);
    const dark = await paintedColours(page);
    expect(dark.text).not.toBe(light.text);
    expect(dark.main).not.toBe(light.main);
    // Dark means dark: a background darker than its text (and the other way round in light mode).
    const luminance = (colour: string) =>
      (colour.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).reduce((sum, channel) => sum + Number(channel), 0);
    expect(luminance(dark.body)).toBeLessThan(luminance(dark.text));
    expect(luminance(light.body)).toBeGreaterThan(luminance(light.text));

    const violations: string[] = [];
    violations.push(...(await severeViolations(page, 'sign in (dark)')));
    await createAccount(page, 'dark@example.com');
    await uploadAndWait(page, [ESPRESSO_CARE]);
    violations.push(...(await severeViolations(page, 'documents (dark)')));

    await openFromMainNav(page, 'Ask');
    await ask(page, QUESTION);
    const answer = page.getByRole('region', { name: 'Answer' });
    expect(await answer.textContent()).toMatch(/citric acid/);
    await answer.getByRole('link', { name: '[1]', exact: true }).first().waitFor();
    await page
      .getByRole('list', { name: 'Sources' })
      .getByRole('link', { name: ESPRESSO_CARE.title })
      .waitFor();
    // Still dark after signing in and asking (the app never pins a scheme of its own).
    expect((await paintedColours(page)).body).toBe(dark.body);
    violations.push(...(await severeViolations(page, 'ask, with a cited answer (dark)')));
    // A chip's tooltip, shown on focus, is read in dark mode too.
    await answer.getByRole('link', { name: '[1]', exact: true }).first().focus();
    await page
      .getByRole('tooltip')
      .filter({ hasText: ESPRESSO_CARE.title })
      .first()
      .waitFor({ state: 'visible' });
    violations.push(...(await severeViolations(page, 'ask, a citation tooltip shown (dark)')));

    expect(violations).toEqual([]);
    expect(pageErrors).toEqual([]);
  }, 600_000);

  it('has no serious or critical violation on the Join page and the Not-found page, light and dark (axe)', async () => {
    const owner = await app.open();
    await createAccount(owner.page, 'inviting-owner@example.com');
    const invited = await owner.page.request.post('/v1/teams/invitations', {
      // A cookie-authenticated write must come from the service's own origin.
      headers: { origin: app.origin },
      data: { email: 'invited@example.com', role: 'member' },
    });
    expect(invited.status(), await invited.text()).toBe(201);
    const { code } = (await invited.json()) as { code: string };
    // The link the Members page shows for it.
    const link = `${app.origin}/join?${new URLSearchParams({ invitation: code }).toString()}`;

    const visitor = await app.open();
    const violations: string[] = [];
    for (const scheme of ['light', 'dark'] as const) {
      // Signed out, from the invitation's link.
      await visitor.page.emulateMedia({ colorScheme: scheme });
      await visitor.page.goto(link);
      await visitor.page.getByRole('heading', { name: 'Join your team', level: 1 }).waitFor();
      await visitor.page.getByRole('button', { name: 'Join team', exact: true }).waitFor();
      expect(await visitor.page.getByLabel('Email', { exact: true }).count()).toBe(1);
      violations.push(...(await severeViolations(visitor.page, `join (${scheme})`)));

      // A path the app does not have, signed in.
      await owner.page.emulateMedia({ colorScheme: scheme });
      await owner.page.goto('/no-such-page/here');
      await owner.page.getByRole('heading', { name: 'Page not found', level: 1 }).waitFor();
      await owner.page.getByRole('navigation', { name: 'Main' }).waitFor();
      violations.push(...(await severeViolations(owner.page, `not found (${scheme})`)));
    }
    expect(violations).toEqual([]);
    expect([...owner.pageErrors, ...visitor.pageErrors]).toEqual([]);
  }, 600_000);

  for (const [size, viewport] of [
    ['desktop', DESKTOP],
    ['375 px', PHONE],
  ] as const) {
    it(`creates an account, uploads, asks, opens a citation, a chat and a source by keyboard alone (${size})`, async () => {
      const { page, pageErrors, foreignRequests } = await app.open(viewport);
      const { keyboard } = page;
      // Listened for from the start: Chromium hands Playwright the file chooser only once it intercepts them.
      const chooserOpened = new Promise<FileChooser>((resolve) => page.once('filechooser', resolve));
      await page.goto('/');
      await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();

      // Create an account: Tab from field to field, Space on "Create account".
      await tabTo(page, page.getByLabel('Email', { exact: true }));
      await keyboard.type(`keys-${viewport.width}@example.com`);
      await tabTo(page, page.getByLabel('Password', { exact: true }), { max: 1 });
      await keyboard.type(TEST_PASSWORD);
      await tabTo(page, page.getByLabel('Name', { exact: true }), { max: 1 });
      await keyboard.type('Kay');
      await tabTo(page, page.getByRole('button', { name: 'Create account', exact: true }), { max: 2 });
      await keyboard.press('Space');
      const mainNav = page.getByRole('navigation', { name: 'Main' });
      await mainNav.waitFor();

      // Documents, from the main navigation: choose a file from the upload field with Space.
      await tabTo(page, mainNav.getByRole('link', { name: 'Documents', exact: true }));
      await keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Documents', level: 1 }).waitFor();
      await tabTo(page, page.getByLabel('Upload files'));
      await keyboard.press('Space');
      await (await chooserOpened).setFiles({
        name: ESPRESSO_CARE.name,
        mimeType: ESPRESSO_CARE.mimeType,
        buffer: Buffer.from(ESPRESSO_CARE.text),
      });
      await page
        .getByRole('row')
        .filter({ hasText: ESPRESSO_CARE.title })
        .filter({ hasText: 'indexed' })
        .first()
        .waitFor({ timeout: 120_000 });

      // Back up to "Ask" in the main navigation with Shift+Tab; the question box; Enter asks.
      await tabTo(page, mainNav.getByRole('link', { name: 'Ask', exact: true }), { backwards: true });
      await keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Ask', level: 1 }).waitFor();
      await tabTo(page, page.getByLabel('Ask a question'));
      await keyboard.type(QUESTION);
      await keyboard.press('Enter');
      await page.waitForURL(/\/chats\/[^/?]+$/, { timeout: 120_000 });
      await page.getByRole('button', { name: 'Ask', exact: true }).waitFor({ timeout: 120_000 });
      const answer = page.getByRole('region', { name: 'Answer' });
      expect(await answer.textContent()).toMatch(/citric acid/);
      expect(await hasFocus(page.getByLabel('Ask a question'))).toBe(true);

      // The answer's first citation, back up from the question box: its tooltip shows, Enter opens it.
      const firstChip = answer.getByRole('link', { name: '[1]', exact: true }).first();
      await tabTo(page, firstChip, { backwards: true });
      await page
        .getByRole('tooltip')
        .filter({ hasText: ESPRESSO_CARE.title })
        .first()
        .waitFor({ state: 'visible' });
      await keyboard.press('Enter');
      await expectCitedPassage(page);

      // The chats sidebar, from a new chat: the chat is there, named by its question; Enter opens it.
      await tabTo(page, mainNav.getByRole('link', { name: 'Ask', exact: true }), { backwards: true });
      await keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Ask', level: 1 }).waitFor();
      const chats = page.getByRole('navigation', { name: 'Chats' });
      const chatLink = chats.getByRole('link', { name: QUESTION, exact: true });
      await chatLink.waitFor();
      await tabTo(page, chatLink, { backwards: true });
      await keyboard.press('Enter');
      await page.getByRole('heading', { name: QUESTION, level: 1 }).waitFor();
      await page.waitForURL(/\/chats\/[^/?]+$/);

      // Its answer, read from the stored history: Tab on to its source, and Enter opens it.
      const source = page
        .getByRole('list', { name: 'Sources' })
        .getByRole('link', { name: ESPRESSO_CARE.title });
      await source.waitFor();
      await tabTo(page, source);
      await keyboard.press('Enter');
      await expectCitedPassage(page);

      expect(foreignRequests).toEqual([]);
      expect(pageErrors).toEqual([]);
    }, 600_000);
  }
});

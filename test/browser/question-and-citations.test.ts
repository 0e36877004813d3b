import { AxeBuilder } from '@axe-core/playwright';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserTestsEnabled, DESKTOP, PHONE } from '../helpers/browser.js';
import {
  ask,
  type BrowserService,
  createAccount,
  type FileToUpload,
  OFFICE_PLANTS,
  startBrowserService,
  TEST_PASSWORD,
  uploadAndWait,
} from '../helpers/browser-service.js';

const OWNER = 'quinn@example.com';
const EMPTY_QUESTION = 'Type a question to ask.';

/** Titled "Working here" by its first heading: its citation must say which file it is. */
const HANDBOOK: FileToUpload = {
  name: 'employee-handbook.md',
  mimeType: 'text/markdown',
  title: 'Working here',
  text: [
    '# Working here',
    'Our office opens at 8am on weekdays. The canteen serves lunch from noon.',
    'Every employee gets 25 days of paid holiday each year. Unused holiday days can be carried over, up to 5 days.',
    'Parking permits are issued by facilities.',
  ].join('\n\n'),
};

const EXPENSES: FileToUpload = {
  name: 'expenses.md',
  mimeType: 'text/markdown',
  title: 'Expenses policy',
  text: [
    '# Expenses policy',
    'Submit expense receipts within 30 days of purchase. Holiday travel is never reimbursed by the company.',
  ].join('\n\n'),
};

/** Answered from two documents, a paragraph each: chips on different lines. */
const QUESTION = 'Tell me about the office';

/** Signs a new browser page in through the API (the sign-in form has its own tests). */
async function signIn(app: BrowserService, viewport: { width: number; height: number }) {
  const watched = await app.open(viewport);
  const signedIn = await watched.page.request.post('/v1/auth/session', {
    headers: { origin: app.origin },
    data: { email: OWNER, password: TEST_PASSWORD },
  });
  expect(signedIn.status(), await signedIn.text()).toBe(200);
  return watched;
}

/** The id of what has focus ('' for none). */
function focusedId(page: Page): Promise<string> {
  return page.evaluate<string>('document.activeElement?.id ?? ""');
}

/** The tooltip a chip is described by (found hidden too: getByRole sees only what is shown). */
async function tooltipOf(page: Page, chip: Locator): Promise<Locator> {
  const id = await chip.getAttribute('aria-describedby');
  expect(id).not.toBeNull();
  return page.locator(`[role="tooltip"][id="${id}"]`);
}

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

function overlap(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

async function boxOf(locator: Locator): Promise<Box> {
  const box = await locator.boundingBox();
  expect(box, `${locator} has no box`).not.toBeNull();
  return box as Box;
}

function centre(box: Box): { x: number; y: number } {
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

describe.skipIf(!browserTestsEnabled())('the question box and citation chips, in Chromium', () => {
  let app: BrowserService;

  beforeAll(async () => {
    app = await startBrowserService({ worker: true });
    const owner = await app.open(DESKTOP);
    await createAccount(owner.page, OWNER);
    await uploadAndWait(owner.page, [HANDBOOK, EXPENSES, OFFICE_PLANTS]);
  }, 120_000);
  afterAll(() => app?.close());

  it('marks an empty question invalid, says a question is needed, keeps focus in the box; typing clears it', async () => {
    const { page, pageErrors } = await signIn(app, DESKTOP);
    const chatRequests: string[] = [];
    page.on('request', (request) => {
      if (/^\/v1\/chat\/?$/.test(new URL(request.url()).pathname)) chatRequests.push(request.url());
    });
    await page.goto('/');
    const field = page.getByRole('textbox', { name: 'Ask a question', exact: true });
    await field.waitFor();
    expect(await field.getAttribute('aria-invalid')).toBeNull();

    // Ask pressed with the pointer on an empty box.
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    const message = page.getByText(EMPTY_QUESTION, { exact: true });
    await message.waitFor();
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    const messageId = await message.getAttribute('id');
    expect(messageId).not.toBeNull();
    expect(await field.getAttribute('aria-errormessage')).toBe(messageId);
    expect((await field.getAttribute('aria-describedby'))?.split(' ')).toContain(messageId);
    expect(await focusedId(page)).toBe(await field.getAttribute('id'));

    // Typing clears it.
    await field.pressSequentially('W');
    await message.waitFor({ state: 'detached' });
    expect(await field.getAttribute('aria-invalid')).toBeNull();

    // Only spaces, and Enter: the same, focus never leaving the box.
    await field.fill('   ');
    await field.press('Enter');
    await message.waitFor();
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    expect(await focusedId(page)).toBe(await field.getAttribute('id'));

    const audit = await new AxeBuilder({ page }).analyze();
    expect(
      audit.violations
        .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
        .map((violation) => violation.id),
    ).toEqual([]);
    expect(chatRequests).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  for (const [size, viewport] of [
    ['desktop', DESKTOP],
    ['375 px', PHONE],
  ] as const) {
    it(`shows a citation's tooltip with title and file name, over no other chip, closed on pointer leave, Escape and blur (${size})`, async () => {
      const { page, pageErrors } = await signIn(app, viewport);
      await page.goto('/');
      await ask(page, QUESTION);
      const answer = page.getByRole('region', { name: 'Answer' });
      const chips = answer.getByRole('link', { name: /^\[\d+\]$/ });
      // The chips render once the Markdown renderer (a chunk of its own) has arrived.
      await expect.poll(() => chips.count()).toBeGreaterThanOrEqual(2);
      const first = answer.getByRole('link', { name: '[1]', exact: true }).first();
      const second = answer.getByRole('link', { name: '[2]', exact: true }).first();

      // The tooltip names the document and, when the title does not, its file.
      const tooltipTexts = await Promise.all(
        (await chips.all()).map(async (chip) => (await (await tooltipOf(page, chip)).textContent()) ?? ''),
      );
      expect(
        tooltipTexts.some((text) => text.startsWith(HANDBOOK.title) && text.includes(HANDBOOK.name)),
      ).toBe(true);

      // Hovering each chip shows its tooltip, which covers none of the other chips.
      for (const [index, chip] of (await chips.all()).entries()) {
        await chip.hover();
        const tooltip = await tooltipOf(page, chip);
        await tooltip.waitFor({ state: 'visible' });
        const tooltipBox = await boxOf(tooltip);
        // Measured now: hovering may have scrolled the page.
        const chipBoxes = await Promise.all((await chips.all()).map(boxOf));
        const covered = chipBoxes.filter((box, other) => other !== index && overlap(tooltipBox, box));
        expect(covered, `the tooltip of chip ${index + 1} covers another chip`).toEqual([]);
        expect(tooltipBox.x).toBeGreaterThanOrEqual(0);
        expect(tooltipBox.x + tooltipBox.width).toBeLessThanOrEqual(viewport.width);
      }

      // Pointer leave: moving on to the next chip closes the first one's tooltip and opens its own.
      const firstTooltip = await tooltipOf(page, first);
      const secondTooltip = await tooltipOf(page, second);
      await first.hover();
      await firstTooltip.waitFor({ state: 'visible' });
      const to = centre(await boxOf(second));
      await page.mouse.move(to.x, to.y, { steps: 8 });
      await firstTooltip.waitFor({ state: 'hidden' });
      await secondTooltip.waitFor({ state: 'visible' });
      // Away from both: nothing stays open.
      await page.mouse.move(1, viewport.height - 1, { steps: 4 });
      await secondTooltip.waitFor({ state: 'hidden' });

      // The pointer may move from the chip onto its tooltip (to read or select it) without closing it:
      // straight up or down, as the tooltip is flush with the chip.
      await first.hover();
      await firstTooltip.waitFor({ state: 'visible' });
      const onTooltip = { x: centre(await boxOf(first)).x, y: centre(await boxOf(firstTooltip)).y };
      await page.mouse.move(onTooltip.x, onTooltip.y, { steps: 8 });
      expect(await firstTooltip.isVisible()).toBe(true);
      await page.mouse.move(1, viewport.height - 1, { steps: 4 });
      await firstTooltip.waitFor({ state: 'hidden' });

      // Focus shows it, Escape closes it; focus again, and moving focus on (blur) closes it.
      await first.focus();
      await firstTooltip.waitFor({ state: 'visible' });
      await page.keyboard.press('Escape');
      await firstTooltip.waitFor({ state: 'hidden' });
      await second.focus();
      await secondTooltip.waitFor({ state: 'visible' });
      await first.focus();
      await secondTooltip.waitFor({ state: 'hidden' });
      await firstTooltip.waitFor({ state: 'visible' });
      await page.getByRole('textbox', { name: 'Ask a question', exact: true }).focus();
      await firstTooltip.waitFor({ state: 'hidden' });

      expect(pageErrors).toEqual([]);
    }, 120_000);
  }
});

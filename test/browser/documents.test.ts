import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeConfluenceServer } from '../fakes/fake-confluence-server.js';
import { browserTestsEnabled, DESKTOP, PHONE } from '../helpers/browser.js';
import {
  type BrowserService,
  createAccount,
  ESPRESSO_CARE,
  OFFICE_PLANTS,
  openFromMainNav,
  startBrowserService,
  uploadAndWait,
} from '../helpers/browser-service.js';

const WIKI_PAGE = 'Deployment checklist';
const WIKI_USER = 'ann@acme.com';

/** Connects the team to the fake Confluence space through the API (the Connectors page has its own test) and waits for its sync. */
async function connectConfluence(page: Page, origin: string, apiToken: string): Promise<void> {
  const saved = await page.request.post('/v1/wiki/config', {
    // A cookie-authenticated write must come from the service's own origin.
    headers: { origin },
    data: { wikiApiToken: apiToken, wikiUsername: WIKI_USER, wikiSpaceKey: 'ENG' },
  });
  expect(saved.status(), await saved.text()).toBe(201);
  const { result_id: jobId } = (await saved.json()) as { result_id: string };
  await expect
    .poll(
      async () => ((await (await page.request.get(`/v1/jobs/${jobId}`)).json()) as { status: string }).status,
      { timeout: 120_000 },
    )
    .toBe('completed');
}

/** The titles of the documents table's rows, in order (their links: a file name may follow a title). */
function rowTitles(page: Page): Promise<string[]> {
  return page.locator('.documents-table tbody th a').allTextContents();
}

describe.skipIf(!browserTestsEnabled())('the Documents page in Chromium', () => {
  let confluence: FakeConfluenceServer;
  let app: BrowserService;

  beforeAll(async () => {
    confluence = await FakeConfluenceServer.start({ flavour: 'cloud', username: WIKI_USER });
    confluence.addSpace('ENG', 'Engineering');
    confluence.putPage('ENG', {
      title: WIKI_PAGE,
      storageBody: `<h1>${WIKI_PAGE}</h1><p>Tag the release and tell the support team before deploying.</p>`,
    });
    app = await startBrowserService({
      env: confluence.serviceEnv(),
      worker: true,
    });
  });
  afterAll(async () => {
    await app?.close();
    await confluence?.close();
  });

  for (const [size, viewport] of [
    ['desktop', DESKTOP],
    ['375 px', PHONE],
  ] as const) {
    it(`filters the documents by source, shows ranked passages with the query's words marked, deletes a document (${size})`, async () => {
      const { page, foreignRequests, dialogs, pageErrors } = await app.open(viewport);
      await createAccount(page, `documents-${viewport.width}@example.com`);
      await uploadAndWait(page, [ESPRESSO_CARE, OFFICE_PLANTS]);
      await connectConfluence(page, app.origin, confluence.apiToken);
      await page.reload();
      const table = (name: string) => page.getByRole('region', { name, exact: true });
      await table('Documents 1–3 of 3').waitFor();

      // The source filter.
      const source = page.getByRole('combobox', { name: 'Source', exact: true });
      expect(await source.inputValue()).toBe('');
      await source.selectOption({ label: 'Confluence' });
      await table('Confluence: documents 1–1 of 1').waitFor();
      expect(await rowTitles(page)).toEqual([WIKI_PAGE]);
      expect(await page.getByRole('row').filter({ hasText: WIKI_PAGE }).textContent()).toContain('indexed');
      await source.selectOption({ label: 'Uploads' });
      await table('Uploads: documents 1–2 of 2').waitFor();
      expect((await rowTitles(page)).sort()).toEqual([ESPRESSO_CARE.title, OFFICE_PLANTS.title]);
      await source.selectOption({ label: 'Google Drive' });
      await page.getByText('No documents from Google Drive.').waitFor();
      expect(await page.locator('.documents-table').count()).toBe(0);
      await source.selectOption({ label: 'All sources' });
      await table('Documents 1–3 of 3').waitFor();

      // Search: ranked passages, best first, each with the query's words (and only those) marked.
      await page.getByRole('searchbox', { name: 'Search documents' }).fill('water plants');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      const results = page.getByRole('list', { name: 'Search results' });
      await results.waitFor();
      const items = results.getByRole('listitem');
      const titles = await items.getByRole('link').allTextContents();
      expect(titles[0]).toBe(OFFICE_PLANTS.title);
      // The espresso passage (rinse "with clean water") matches one word only: ranked below.
      expect(titles.indexOf(ESPRESSO_CARE.title)).toBeGreaterThan(0);
      expect(titles).not.toContain(WIKI_PAGE);
      const best = (await items.first().locator('mark').allTextContents()).map((word) => word.toLowerCase());
      expect(new Set(best)).toEqual(new Set(['water', 'plants']));
      for (const item of await items.all()) {
        for (const word of await item.locator('mark').allTextContents()) {
          expect(['water', 'plants']).toContain(word.toLowerCase());
        }
      }
      // A result opens its document at that passage.
      await items.first().getByRole('link', { name: OFFICE_PLANTS.title }).click();
      await page.getByRole('heading', { name: OFFICE_PLANTS.title, level: 1 }).waitFor();
      expect(new URL(page.url()).searchParams.get('passage')).toMatch(/^\d+$/);
      expect(await page.locator('.passages mark').textContent()).toContain('Water the office plants');

      // Deleting asks first: Cancel keeps the document, Delete removes it and its passages.
      await openFromMainNav(page, 'Documents');
      await table('Documents 1–3 of 3').waitFor();
      const deletePlants = page.getByRole('button', { name: `Delete ${OFFICE_PLANTS.title}`, exact: true });
      await deletePlants.click();
      const dialog = page.getByRole('dialog', { name: 'Delete this document?' });
      await dialog.getByRole('button', { name: 'Cancel', exact: true }).click();
      await dialog.waitFor({ state: 'hidden' });
      expect(await rowTitles(page)).toContain(OFFICE_PLANTS.title);
      await deletePlants.click();
      await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
      await table('Documents 1–2 of 2').waitFor();
      expect(await rowTitles(page)).not.toContain(OFFICE_PLANTS.title);
      const listed = (await (await page.request.get('/v1/documents')).json()) as {
        documents: { title: string }[];
      };
      expect(listed.documents.map((document) => document.title).sort()).toEqual([
        WIKI_PAGE,
        ESPRESSO_CARE.title,
      ]);
      await page.getByRole('searchbox', { name: 'Search documents' }).fill('plants');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'No passage matches “plants”.' }).waitFor();

      expect(dialogs).toEqual([]);
      expect(foreignRequests).toEqual([]);
      expect(pageErrors).toEqual([]);
    }, 600_000);
  }
});

import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserTestsEnabled } from '../helpers/browser.js';
import {
  type BrowserService,
  createAccount,
  type FileToUpload,
  openFromMainNav,
  startBrowserService,
} from '../helpers/browser-service.js';

const PRIVATE_NOTE: FileToUpload = {
  name: 'salary-bands.md',
  mimeType: 'text/markdown',
  title: 'Salary bands',
  text: '# Salary bands\n\nThe salary bands are reviewed every January by the people team.\n',
};
const TEAM_NOTE: FileToUpload = {
  name: 'office-hours.md',
  mimeType: 'text/markdown',
  title: 'Office hours',
  text: '# Office hours\n\nThe office is open from eight to six on weekdays.\n',
};

interface DocumentsAnswer {
  documents: { title: string; access: { team: boolean; emails: string[] } }[];
}

/** Picks who may open the next uploads, uploads `file` and waits until its row says `indexed`. */
async function uploadAs(page: Page, choice: string, file: FileToUpload): Promise<void> {
  const group = page.getByRole('group', { name: 'Who can open the uploaded files' });
  await group.getByRole('radio', { name: choice, exact: true }).check();
  await page
    .getByLabel('Upload files')
    .setInputFiles([{ name: file.name, mimeType: file.mimeType, buffer: Buffer.from(file.text) }]);
  await page
    .getByRole('row')
    .filter({ hasText: file.title })
    .filter({ hasText: 'indexed' })
    .first()
    .waitFor({ timeout: 120_000 });
}

describe.skipIf(!browserTestsEnabled())('who can open a document, in Chromium', () => {
  let app: BrowserService;
  beforeAll(async () => {
    app = await startBrowserService({ worker: true });
  });
  afterAll(() => app?.close());

  it('uploads one file for the team and one for the uploader alone, and says who can open each', async () => {
    const { page, pageErrors } = await app.open();
    const email = 'ada@corp.example';
    await createAccount(page, email);
    await openFromMainNav(page, 'Documents');

    // A password sign-up proves no address (this service has no mail server to send a link): the
    // page says why documents shared with it are missing, and asking for a link says why not.
    await page.getByText('Confirm your e-mail address to see documents shared with it.').waitFor();
    await page.getByRole('button', { name: 'Send a confirmation link' }).click();
    expect(await page.getByRole('alert').textContent()).toContain('This server cannot send e-mail');

    // The team is the default choice.
    const group = page.getByRole('group', { name: 'Who can open the uploaded files' });
    expect(await group.getByRole('radio', { name: 'Everyone in the team', exact: true }).isChecked()).toBe(
      true,
    );
    expect(await group.getByRole('radio', { name: 'Only me', exact: true }).isChecked()).toBe(false);

    await uploadAs(page, 'Only me', PRIVATE_NOTE);
    await uploadAs(page, 'Everyone in the team', TEAM_NOTE);

    // The service stored what was chosen.
    const listed = (await (await page.request.get('/v1/documents')).json()) as DocumentsAnswer;
    const accessOf = (title: string) => listed.documents.find((document) => document.title === title)?.access;
    expect(accessOf(PRIVATE_NOTE.title)).toMatchObject({ team: false, emails: [email] });
    expect(accessOf(TEAM_NOTE.title)).toMatchObject({ team: true });

    // The table says it in words, in its own column.
    await page.getByRole('columnheader', { name: 'Who can open', exact: true }).waitFor();
    const rowOf = (title: string) => page.getByRole('row').filter({ hasText: title });
    expect(await rowOf(PRIVATE_NOTE.title).textContent()).toContain('only you');
    expect(await rowOf(TEAM_NOTE.title).textContent()).toContain('Everyone in the team');

    // So does the document's page.
    await rowOf(PRIVATE_NOTE.title).getByRole('link', { name: PRIVATE_NOTE.title, exact: true }).click();
    await page.getByRole('heading', { name: PRIVATE_NOTE.title, level: 1 }).waitFor();
    const facts = page.locator('.document-facts');
    await facts.getByText('Who can open', { exact: true }).waitFor();
    expect(await facts.textContent()).toContain('only you');
    expect(pageErrors).toEqual([]);
  });
});

import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserTestsEnabled, DESKTOP, PHONE } from '../helpers/browser.js';
import {
  type BrowserService,
  createAccount,
  openFromMainNav,
  startBrowserService,
} from '../helpers/browser-service.js';
import { readmeBatch } from '../helpers/upload-batch-files.js';

/** The service's UPLOAD_MAX_BYTES here: small, so a too-large file is quick to make. */
const UPLOAD_LIMIT = 64 * 1024;

async function auditAccessibility(page: Page, label: string): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  const severe = results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${label}: ${violation.id} (${violation.nodes.length})`);
  expect(severe).toEqual([]);
}

/** Counts the page's upload requests (POST /v1/documents) from now on. */
function countUploadRequests(page: Page): () => number {
  let count = 0;
  page.on('request', (request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname === '/v1/documents') count += 1;
  });
  return () => count;
}

/** The page's top-level scroll position and width, as the browser lays it out. */
async function pageMetrics(page: Page): Promise<{ scrollY: number; scrollWidth: number }> {
  return page.evaluate('({ scrollY: window.scrollY, scrollWidth: document.documentElement.scrollWidth })');
}

/** The finished jobs the Index status page lists, by their headings. */
async function finishedJobNames(page: Page): Promise<string[]> {
  await openFromMainNav(page, 'Index status');
  const finished = page.getByRole('list', { name: 'Finished jobs' });
  await finished.waitFor({ timeout: 30_000 });
  return finished.getByRole('heading').allTextContents();
}

describe.skipIf(!browserTestsEnabled())('uploading many files at once, in Chromium', () => {
  let app: BrowserService;
  beforeAll(async () => {
    app = await startBrowserService({ worker: true, env: { UPLOAD_MAX_BYTES: String(UPLOAD_LIMIT) } });
  });
  afterAll(() => app?.close());

  it('sends 31 files as one job, then folds them into one line that keeps the failure in view (1280×800)', async () => {
    const { page, pageErrors, foreignRequests } = await app.open(DESKTOP);
    await createAccount(page, 'batch-desktop@example.com');
    await openFromMainNav(page, 'Documents');
    const uploadRequests = countUploadRequests(page);

    await page.getByLabel('Upload files').setInputFiles(readmeBatch(30));
    const uploads = page.getByRole('list', { name: 'Uploads' });
    await uploads
      .getByRole('status')
      .filter({ hasText: '31 files: 30 indexed, 1 failed' })
      .waitFor({ timeout: 90_000 });
    // One request, so one job on Index status, not 31.
    expect(uploadRequests()).toBe(1);

    // Folded: the one line, the failed file with why in words, and no progress bar (full or not).
    const toggle = uploads.getByRole('button', { name: 'Show details', exact: true });
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    const failures = uploads.getByRole('list', { name: 'Failed files' });
    expect(await failures.getByRole('listitem').allTextContents()).toEqual([
      'broken.pdf failed: its content could not be read',
    ]);
    expect(await uploads.getByRole('progressbar').count()).toBe(0);
    const details = uploads.getByRole('list', { name: 'The 31 files' });
    expect(await details.count()).toBe(0);

    // The documents table starts within the first 1,600 px of the page.
    const table = page.getByRole('table', { name: /^Documents \d/ });
    await table.waitFor({ timeout: 30_000 });
    await auditAccessibility(page, 'documents, a batch folded');
    const box = await table.boundingBox();
    const { scrollY } = await pageMetrics(page);
    expect((box?.y ?? Number.POSITIVE_INFINITY) + scrollY).toBeLessThanOrEqual(1600);

    // Show details lists every file with its outcome; the failure is among them, not beside them.
    await toggle.click();
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    await details.waitFor();
    expect(await details.getByRole('listitem').count()).toBe(31);
    expect(await details.getByRole('listitem').filter({ hasText: 'broken.pdf' }).textContent()).toContain(
      'failed: its content could not be read',
    );
    await details.getByRole('link', { name: 'Open commander-readme.md', exact: true }).waitFor();
    expect(await failures.count()).toBe(0);
    await auditAccessibility(page, 'documents, a batch unfolded');
    // And folds again.
    await toggle.click();
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    expect(await details.count()).toBe(0);
    await failures.waitFor();

    // Index status: one job for the batch, with its 31 files.
    const jobs = await finishedJobNames(page);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatch(/^Upload of \S+ and 30 more files, /);

    expect(foreignRequests).toEqual([]);
    expect(pageErrors).toEqual([]);
  }, 180_000);

  it('sends a batch within the limits as one job, folded to one line at 375 px without scrolling sideways', async () => {
    const { page, pageErrors, foreignRequests } = await app.open(PHONE);
    await createAccount(page, 'batch-phone@example.com');
    await openFromMainNav(page, 'Documents');
    const uploadRequests = countUploadRequests(page);

    await page.getByLabel('Upload files').setInputFiles(readmeBatch(11));
    const uploads = page.getByRole('list', { name: 'Uploads' });
    await uploads
      .getByRole('status')
      .filter({ hasText: '12 files: 11 indexed, 1 failed' })
      .waitFor({ timeout: 90_000 });
    expect(uploadRequests()).toBe(1);
    expect(
      await uploads.getByRole('list', { name: 'Failed files' }).getByRole('listitem').allTextContents(),
    ).toEqual(['broken.pdf failed: its content could not be read']);
    const toggle = uploads.getByRole('button', { name: 'Show details', exact: true });
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    expect((await pageMetrics(page)).scrollWidth).toBeLessThanOrEqual(PHONE.width);
    await auditAccessibility(page, 'documents, a batch folded, 375 px');

    await toggle.click();
    const details = uploads.getByRole('list', { name: 'The 12 files' });
    await details.waitFor();
    expect(await details.getByRole('listitem').count()).toBe(12);
    expect((await pageMetrics(page)).scrollWidth).toBeLessThanOrEqual(PHONE.width);

    // One request, one job: Index status lists it once, with its 12 files.
    const jobs = await finishedJobNames(page);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatch(/^Upload of \S+ and 11 more files, /);

    expect(foreignRequests).toEqual([]);
    expect(pageErrors).toEqual([]);
  }, 180_000);

  it('says a file is too large in words for people, naming the size the server accepts, and sends the others', async () => {
    const { page, pageErrors, foreignRequests } = await app.open(DESKTOP);
    await createAccount(page, 'batch-large@example.com');
    await openFromMainNav(page, 'Documents');
    const big = {
      name: 'big-manual.md',
      mimeType: 'text/markdown',
      buffer: Buffer.from(`# Big manual\n\n${'A long paragraph of the manual. '.repeat(4000)}`),
    };
    const small = {
      name: 'small-note.md',
      mimeType: 'text/markdown',
      buffer: Buffer.from('# Small note\n\nThe small note fits.\n'),
    };
    expect(big.buffer.length).toBeGreaterThan(UPLOAD_LIMIT);
    const words =
      /^big-manual\.md failed: this file is larger than 64 KiB, the largest this server accepts$/i;

    await page.getByLabel('Upload files').setInputFiles([big, small]);
    const uploads = page.getByRole('list', { name: 'Uploads' });
    await uploads
      .getByRole('status')
      .filter({ hasText: '2 files: 1 indexed, 1 failed' })
      .waitFor({ timeout: 60_000 });
    const failure = uploads.getByRole('list', { name: 'Failed files' }).getByRole('listitem');
    expect(await failure.textContent()).toMatch(words);
    // The setting's name is for operators: the API's own detail says it, the page does not.
    expect(await uploads.textContent()).not.toContain('UPLOAD_MAX_BYTES');

    // Chosen alone, it says the same on its own line.
    await page.getByLabel('Upload files').setInputFiles([big]);
    const alone = uploads.getByRole('listitem').filter({ hasText: 'big-manual.md' }).first();
    await alone
      .getByRole('status')
      .filter({ hasText: /^failed/ })
      .waitFor({ timeout: 30_000 });
    expect(await alone.getByRole('status').textContent()).toMatch(
      /^failed: this file is larger than 64 KiB, the largest this server accepts$/i,
    );
    expect(await alone.getByRole('progressbar').count()).toBe(0);
    await auditAccessibility(page, 'documents, a file too large');

    expect(foreignRequests).toEqual([]);
    expect(pageErrors).toEqual([]);
  }, 120_000);
});

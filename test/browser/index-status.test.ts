import { AxeBuilder } from '@axe-core/playwright';
import pino from 'pino';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorker } from '../../src/worker.js';
import { browserTestsEnabled, DESKTOP, PHONE } from '../helpers/browser.js';
import {
  type BrowserService,
  createAccount,
  openFromMainNav,
  startBrowserService,
} from '../helpers/browser-service.js';

const NOTES = `# Boiler maintenance

The boiler is serviced every May by the facilities team; book the visit in April.
`;

/** Two files: one the service reads, and a "PDF" whose bytes are not a PDF. */
const FILES = [
  { name: 'boiler-notes.md', mimeType: 'text/markdown', buffer: Buffer.from(NOTES) },
  {
    name: 'broken.pdf',
    mimeType: 'application/pdf',
    buffer: Buffer.from('these bytes are not a PDF at all'),
  },
];

/** Uploads FILES on the Documents page, each chosen alone (one job each), and waits until both are stored. */
async function uploadBoth(page: Page): Promise<void> {
  await openFromMainNav(page, 'Documents');
  for (const file of FILES) await page.getByLabel('Upload files').setInputFiles([file]);
  const uploads = page.getByRole('list', { name: 'Uploads' });
  // Each file's row says "pending" once its upload is stored and its job queued (or later, its outcome).
  await expect
    .poll(
      () =>
        uploads
          .getByRole('status')
          .filter({ hasNotText: /upload/ })
          .count(),
      { timeout: 120_000 },
    )
    .toBe(2);
}

async function openIndexStatus(page: Page): Promise<void> {
  await openFromMainNav(page, 'Index status');
}

/** The finished job named `name` (its heading starts so) with its outcome and failures. */
function finishedJob(page: Page, name: string) {
  return page
    .getByRole('list', { name: 'Finished jobs' })
    .getByRole('listitem')
    .filter({ has: page.getByRole('heading', { name: new RegExp(`^${name.replaceAll('.', '\\.')}, `) }) });
}

/** Waits until both uploads show as finished: one file indexed, the other failed with its reason. */
async function seeBothFinished(page: Page): Promise<void> {
  const notes = finishedJob(page, 'Upload of boiler-notes.md');
  await notes.waitFor({ timeout: 120_000 });
  expect(await notes.textContent()).toContain('completed: 1 indexed');
  const broken = finishedJob(page, 'Upload of broken.pdf');
  await broken.waitFor({ timeout: 120_000 });
  expect(await broken.textContent()).toContain('completed: 1 failed');
  const failures = broken.getByRole('list', { name: /^Failed files of Upload of broken\.pdf, / });
  expect(await failures.getByRole('listitem').count()).toBe(1);
  expect(await failures.getByRole('listitem').textContent()).toMatch(
    /^broken\.pdf: its content could not be read/,
  );
  await page.getByText('Nothing is being indexed right now.').waitFor();
  expect(await page.getByRole('progressbar').count()).toBe(0);
}

async function auditAccessibility(page: Page, label: string): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  const severe = results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${label}: ${violation.id} (${violation.nodes.length})`);
  expect(severe).toEqual([]);
}

describe.skipIf(!browserTestsEnabled())('the index status page in Chromium', () => {
  let app: BrowserService;
  let stopWorker: (() => void) | undefined;

  // The worker starts later, in the test: until then the uploads' jobs wait in the queue.
  beforeAll(async () => {
    app = await startBrowserService({});
  });
  afterAll(async () => {
    stopWorker?.();
    await app?.close();
  });

  const open = (viewport: { width: number; height: number }) => app.open(viewport);

  async function ensureWorker(): Promise<void> {
    stopWorker ??= await startWorker(app.service.runtime, app.service.config, pino({ level: 'silent' }));
  }

  it('shows queued uploads with progress bars, refreshed live until one is indexed and the other failed with its reason (desktop)', async () => {
    const { page, foreignRequests, pageErrors } = await open(DESKTOP);
    const listings: { url: string; at: number }[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/v1/jobs')
        listings.push({ url: request.url(), at: Date.now() });
    });
    await createAccount(page, 'index-status@example.com');
    await uploadBoth(page);
    await openIndexStatus(page);
    await page.evaluate(() => {
      (globalThis as unknown as { notReloaded: boolean }).notReloaded = true;
    });

    // Both jobs wait for the worker: a progress bar each (0 of 1 file), named by the job.
    const running = page.getByRole('list', { name: 'Running jobs' });
    for (const name of ['boiler-notes.md', 'broken.pdf']) {
      const bar = running.getByRole('progressbar', {
        name: new RegExp(`^Upload of ${name.replace('.', '\\.')}, `),
      });
      await bar.waitFor();
      expect(await bar.getAttribute('max')).toBe('1');
      expect(await bar.getAttribute('value')).toBe('0');
    }
    expect(await running.getByRole('listitem').count()).toBe(2);
    expect(await running.textContent()).toContain('waiting to start: 1 file');
    await auditAccessibility(page, 'index status, jobs waiting');

    // While a job is under way the page asks every 2 s (each refresh: the active and the finished listing).
    const activeListings = () => listings.filter((listing) => listing.url.includes('status=active')).length;
    const before = activeListings();
    await page.waitForTimeout(5500);
    expect(activeListings() - before).toBeGreaterThanOrEqual(2);
    // Left for another page, it asks no more.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Documents' }).click();
    await page.getByRole('heading', { name: 'Documents', level: 1 }).waitFor();
    const left = listings.length;
    await page.waitForTimeout(4500);
    expect(listings.length).toBe(left);

    await openIndexStatus(page);
    await running.getByRole('progressbar').first().waitFor();
    await ensureWorker();
    await seeBothFinished(page);
    // Refreshed in place: the page was not reloaded, and the finish was announced.
    expect(await page.evaluate(() => (globalThis as unknown as { notReloaded?: boolean }).notReloaded)).toBe(
      true,
    );
    await expect
      .poll(() => page.getByRole('status').filter({ hasText: 'finished' }).count())
      .toBeGreaterThan(0);
    await auditAccessibility(page, 'index status, jobs finished');

    // Nothing runs now: the page asks again only every 15 s.
    const idle = activeListings();
    await page.waitForTimeout(4500);
    expect(activeListings() - idle).toBeLessThanOrEqual(1);

    expect(foreignRequests).toEqual([]);
    expect(pageErrors).toEqual([]);
  }, 600_000);

  it("shows the team's own finished jobs at 375 px, reached by keyboard, without scrolling sideways", async () => {
    await ensureWorker();
    const { page, foreignRequests, pageErrors } = await open(PHONE);
    await createAccount(page, 'index-status-phone@example.com');
    await page.getByRole('heading', { level: 1 }).first().waitFor();
    // No job yet: the page says so.
    await openIndexStatus(page);
    await page.getByText('Nothing has been indexed yet.').waitFor();

    await uploadBoth(page);
    const link = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Index status' });
    await link.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Index status', level: 1 }).waitFor();
    expect(await link.getAttribute('aria-current')).toBe('page');
    await seeBothFinished(page);
    // Only this team's two jobs: the other account's are not listed.
    expect(await page.getByRole('list', { name: 'Finished jobs' }).getByRole('heading').count()).toBe(2);
    const overflow = await page.evaluate(
      () =>
        (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document
          .documentElement.scrollWidth,
    );
    expect(overflow).toBeLessThanOrEqual(PHONE.width);
    await auditAccessibility(page, 'index status, 375 px');

    expect(foreignRequests).toEqual([]);
    expect(pageErrors).toEqual([]);
  }, 600_000);
});

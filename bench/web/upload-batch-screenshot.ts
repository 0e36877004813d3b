// `npx tsx bench/web/upload-batch-screenshot.ts`: docs/screenshots/upload-batch.png, a finished batch
// upload at 1280×800 as a person sees it. The built service (`npm run build`, on PGlite), a new
// account, 31 files (30 package READMEs and a "PDF" that is not one) chosen together on the Documents
// page, shot once the batch has folded into its one line. Apart from the browser test
// (test/browser/upload-batch.test.ts) so that running the tests changes no file in docs/.

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { chromiumPath } from '../../test/helpers/browser.js';
import { readmeBatch } from '../../test/helpers/upload-batch-files.js';
import { installCleanupHandlers, onCleanup, runBenchmark, runCleanups } from '../lib/children.js';
import { ROOT } from '../lib/paths.js';
import { buildService, SERVICE_ENTRY, startServer } from '../lib/service.js';

const progress = (message: string) => process.stderr.write(`upload-batch screenshot: ${message}\n`);

async function main(): Promise<void> {
  const stopHandlers = installCleanupHandlers(30 * 60_000);
  const executablePath = chromiumPath();
  if (executablePath === undefined) throw new Error('Chromium is missing: run scripts/setup-chromium.sh');

  progress('npm run build');
  await buildService();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'upload-batch-'));
  onCleanup(() => rmSync(dataDir, { recursive: true, force: true }));
  // A first start migrates a new database: on a busy machine that can take minutes.
  const service = await startServer({
    name: 'service',
    script: SERVICE_ENTRY,
    env: { DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    readyPath: '/readyz',
    readyTimeoutMs: 10 * 60_000,
  });
  onCleanup(() => service.stop());

  const browser = await chromium.launch({
    executablePath,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  onCleanup(() => browser.close());
  const context = await browser.newContext({ baseURL: service.url, viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();

  progress('a new account');
  await page.goto('/');
  await page.getByLabel('Email', { exact: true }).fill('ada@example.com');
  await page.getByLabel('Password', { exact: true }).fill('a long screenshot passphrase');
  await page.getByLabel('Name', { exact: true }).fill('Ada');
  await page.getByRole('button', { name: 'Create account', exact: true }).click();
  const nav = page.getByRole('navigation', { name: 'Main' });
  await nav.waitFor();
  await nav.getByRole('link', { name: 'Documents', exact: true }).click();
  await page.getByRole('heading', { name: 'Documents', level: 1 }).waitFor();

  progress('uploading 31 files');
  await page.getByLabel('Upload files').setInputFiles(readmeBatch(30));
  await page
    .getByRole('list', { name: 'Uploads' })
    .getByRole('status')
    .filter({ hasText: '31 files: 30 indexed, 1 failed' })
    .waitFor({ timeout: 5 * 60_000 });
  await page.getByRole('table', { name: /^Documents \d/ }).waitFor();

  const screenshots = path.join(ROOT, 'docs/screenshots');
  mkdirSync(screenshots, { recursive: true });
  const file = path.join(screenshots, 'upload-batch.png');
  await page.screenshot({ path: file });
  progress(`written: ${path.relative(ROOT, file)}`);
  await runCleanups();
  stopHandlers();
}

runBenchmark('upload-batch-screenshot', main);

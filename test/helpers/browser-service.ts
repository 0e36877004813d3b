import { type AddressInfo, createServer } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { DESKTOP, launchChromium, openPage, type WatchedPage } from './browser.js';
import { startTestApp, type TestApp } from './test-app.js';

/** The real service listening on a loopback port (PGlite), and a Chromium to open pages on it. */
export interface BrowserService {
  readonly service: TestApp;
  readonly origin: string;
  readonly browser: Browser;
  /** A new page with its own cookies (see `openPage`), closed with the service. */
  open(viewport?: { width: number; height: number }, allowOrigins?: readonly string[]): Promise<WatchedPage>;
  close(): Promise<void>;
}

/** A port of 127.0.0.1 that was free a moment ago: for a service whose PUBLIC_URL must be known before it starts. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Starts the service (with its worker unless told otherwise) and Chromium; on `port` when given. */
export async function startBrowserService(
  options: Parameters<typeof startTestApp>[0] & { port?: number } = { worker: true },
): Promise<BrowserService> {
  const service = await startTestApp(options);
  await service.app.listen({ host: '127.0.0.1', port: options.port ?? 0 });
  const origin = `http://127.0.0.1:${(service.app.server.address() as AddressInfo).port}`;
  const browser = await launchChromium();
  const pages: WatchedPage[] = [];
  return {
    service,
    origin,
    browser,
    open: async (viewport = DESKTOP, allowOrigins = []) => {
      const watched = await openPage(browser, origin, { viewport, allowOrigins });
      pages.push(watched);
      return watched;
    },
    close: async () => {
      for (const page of pages) await page.close().catch(() => {});
      await browser.close();
      await service.close();
    },
  };
}

export const TEST_PASSWORD = 'correct horse battery';

/** Creates an account from the sign-in page and waits for the signed-in app. */
export async function createAccount(page: Page, email: string): Promise<void> {
  await page.goto('/');
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(TEST_PASSWORD);
  await page.getByLabel('Name', { exact: true }).fill('Ada');
  await page.getByRole('button', { name: 'Create account', exact: true }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
}

/** Follows a link of the main navigation and waits for its page's heading. */
export async function openFromMainNav(page: Page, link: string, heading = link): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: link, exact: true }).click();
  await page.getByRole('heading', { name: heading, level: 1 }).first().waitFor();
}

export interface FileToUpload {
  readonly name: string;
  readonly mimeType: string;
  readonly text: string;
  /** The title its row on the Documents page shows. */
  readonly title: string;
}

/** Uploads files through the Documents page and waits until each row (by its title) says `indexed`. */
export async function uploadAndWait(page: Page, files: readonly FileToUpload[]): Promise<void> {
  await openFromMainNav(page, 'Documents');
  await page
    .getByLabel('Upload files')
    .setInputFiles(
      files.map((file) => ({ name: file.name, mimeType: file.mimeType, buffer: Buffer.from(file.text) })),
    );
  for (const file of files) {
    const row = page.getByRole('row').filter({ hasText: file.title });
    await row.filter({ hasText: 'indexed' }).first().waitFor({ timeout: 120_000 });
  }
}

/** Asks on the page as it is (a new chat, or the chat open) and waits for the end of the answer. */
export async function ask(page: Page, question: string): Promise<void> {
  await page.getByLabel('Ask a question').fill(question);
  await page.getByRole('button', { name: 'Ask', exact: true }).click();
  // The turn is over once the Ask button is back (Stop while streaming).
  await page.getByRole('button', { name: 'Ask', exact: true }).waitFor({ timeout: 120_000 });
}

/** A second document, on another topic, for the pages that list or switch between several. */
export const OFFICE_PLANTS: FileToUpload = {
  name: 'office-plants.md',
  mimeType: 'text/markdown',
  title: 'Office plants',
  text: `# Office plants

Water the office plants every Friday with one glass of water each, and turn the pots a quarter so
they grow straight.
`,
};

export const ESPRESSO_CARE: FileToUpload = {
  name: 'espresso-care.md',
  mimeType: 'text/markdown',
  title: 'Espresso machine care',
  text: `# Espresso machine care

Descale the espresso machine every two months with citric acid: fill the tank, run half of it
through the steam wand, wait twenty minutes, then run the rest and rinse twice with clean water.

\`\`\`sh
descale --acid citric --wait 20m
\`\`\`

Clean the portafilter basket daily with hot water and a brush.
`,
};

import { existsSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';

/** Debian's Chromium (scripts/setup-chromium.sh installs it), or CHROMIUM_PATH. */
export function chromiumPath(): string | undefined {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  return candidates.find((candidate) => candidate !== undefined && candidate !== '' && existsSync(candidate));
}

/**
 * Whether the browser tests run: always where Chromium is installed; without it they are skipped
 * with a warning, unless REQUIRE_BROWSER=1 (CI) makes a missing browser a failure.
 */
export function browserTestsEnabled(): boolean {
  if (chromiumPath() !== undefined) return true;
  if (process.env.REQUIRE_BROWSER === '1') {
    throw new Error('Chromium is missing: run scripts/setup-chromium.sh (REQUIRE_BROWSER=1)');
  }
  console.warn('browser tests skipped: no Chromium (scripts/setup-chromium.sh installs it)');
  return false;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      // No calls home: the only requests a test sees are the page's own.
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
}

export const DESKTOP = { width: 1280, height: 800 } as const;
/** A phone as the issues measure it (an iPhone X-class screen). */
export const PHONE = { width: 375, height: 812 } as const;

/** A page and what it did besides talking to the service: requests elsewhere, dialogs, errors. */
export interface WatchedPage {
  readonly page: Page;
  /** Every request to another origin (refused, so nothing leaves the machine). */
  readonly foreignRequests: string[];
  /** Requests to the origins a test allowed (fake OAuth providers the page is sent to), as `METHOD type url`. */
  readonly allowedForeignRequests: string[];
  /** Every alert, confirm or prompt that opened (accepted or dismissed by the test). */
  readonly dialogs: string[];
  /** Uncaught errors in the page. */
  readonly pageErrors: string[];
  close(): Promise<void>;
}

/**
 * A new browser context (its own cookies) at `viewport`, watching every request: those to
 * `origin` (and `allowOrigins`: fake sign-in pages) go through, anything else is recorded and
 * refused. `confirmDialogs` accepts
 * confirmations (a delete's "are you sure"); every dialog is recorded either way.
 */
export async function openPage(
  browser: Browser,
  origin: string,
  options: {
    viewport?: { width: number; height: number };
    confirmDialogs?: boolean;
    allowOrigins?: readonly string[];
  } = {},
): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport: options.viewport ?? DESKTOP, baseURL: origin });
  // Playwright's default of 30 s for every action and wait is a deadline a busy machine misses.
  context.setDefaultTimeout(120_000);
  const foreignRequests: string[] = [];
  const allowedForeignRequests: string[] = [];
  const dialogs: string[] = [];
  const pageErrors: string[] = [];
  await context.route('**/*', async (route) => {
    const url = route.request().url();
    if (url.startsWith(`${origin}/`) || url === origin || url.startsWith('data:')) {
      await route.continue();
      return;
    }
    if (options.allowOrigins?.some((allowed) => url.startsWith(`${allowed}/`)) === true) {
      const request = route.request();
      allowedForeignRequests.push(`${request.method()} ${request.resourceType()} ${url}`);
      await route.continue();
      return;
    }
    foreignRequests.push(url);
    await route.abort('blockedbyclient');
  });
  const page = await context.newPage();
  page.on('dialog', (dialog) => {
    dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void (options.confirmDialogs === true && dialog.type() === 'confirm'
      ? dialog.accept()
      : dialog.dismiss());
  });
  page.on('pageerror', (error) => pageErrors.push(error.message));
  return { page, foreignRequests, allowedForeignRequests, dialogs, pageErrors, close: () => context.close() };
}

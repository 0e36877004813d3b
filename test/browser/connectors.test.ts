import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeConfluenceServer } from '../fakes/fake-confluence-server.js';
import { browserTestsEnabled, DESKTOP, PHONE } from '../helpers/browser.js';
import {
  type BrowserService,
  createAccount,
  openFromMainNav,
  startBrowserService,
} from '../helpers/browser-service.js';

const SPACE_PAGES = ['Onboarding guide', 'Deployment checklist', 'Incident response'];

const pageBody = (title: string) =>
  `<h1>${title}</h1><p>How the team handles ${title.toLowerCase()}.</p><p>Ask the owners for details.</p>`;

async function openConnectors(page: Page): Promise<void> {
  await openFromMainNav(page, 'Connectors');
  await page.getByRole('button', { name: /^(Connect Confluence|Save)$/ }).waitFor();
}

/** The text of the <dd> beside a <dt> of the connector's facts. */
function fact(page: Page, term: string) {
  return page
    .locator('.wiki-sync dl > div')
    .filter({ has: page.locator('dt', { hasText: term }) })
    .locator('dd');
}

describe.skipIf(!browserTestsEnabled())('the Connectors page in Chromium', () => {
  let confluence: FakeConfluenceServer;
  let app: BrowserService;

  beforeAll(async () => {
    confluence = await FakeConfluenceServer.start({ flavour: 'cloud', username: 'ann@acme.com' });
    confluence.addSpace('ENG', 'Engineering');
    for (const title of SPACE_PAGES) confluence.putPage('ENG', { title, storageBody: pageBody(title) });
    // The service talks to the fake Confluence (on 127.0.0.1) as the wiki route tests wire it.
    app = await startBrowserService({
      env: confluence.serviceEnv(),
      worker: true,
    });
  });
  afterAll(async () => {
    await app?.close();
    await confluence?.close();
  });

  const open = (viewport: { width: number; height: number } = DESKTOP) => app.open(viewport);

  for (const [size, viewport] of [
    ['desktop', DESKTOP],
    ['375 px, by keyboard', PHONE],
  ] as const) {
    it(`refuses a wrong token in the service's words, connects, syncs now and lists the pages as indexed (${size})`, async () => {
      const { page, foreignRequests, pageErrors } = await open(viewport);
      const keyboard = viewport === PHONE;
      await createAccount(page, `connector-${viewport.width}@example.com`);
      await openConnectors(page);
      // This server has no Google or Slack OAuth client: nothing offers to connect them.
      expect(await page.getByRole('button', { name: /google|drive|slack/i }).count()).toBe(0);
      expect(await page.getByRole('link', { name: /google|drive|slack/i }).count()).toBe(0);
      expect(await page.getByLabel('API token').getAttribute('type')).toBe('password');
      // This server has a wiki of its own (WIKI_BASE_URL): the site may be left empty.
      expect(
        await page.getByText('Leave it empty to use the wiki this service is set up with.').count(),
      ).toBe(1);
      expect(await page.getByLabel('Site').getAttribute('required')).toBeNull();

      const fill = async (fields: { site: string; email: string; token: string; space: string }) => {
        if (keyboard) {
          await page.getByLabel('Site').focus();
          for (const value of [fields.site, fields.email, fields.token, fields.space]) {
            await page.keyboard.press('ControlOrMeta+a');
            await page.keyboard.insertText(value);
            await page.keyboard.press('Tab');
          }
          // Focus is on the submit button now.
          await page.keyboard.press('Enter');
        } else {
          await page.getByLabel('Site').fill(fields.site);
          await page.getByLabel('Email', { exact: true }).fill(fields.email);
          await page.getByLabel('API token').fill(fields.token);
          await page.getByLabel('Space key').fill(fields.space);
          await page.getByRole('button', { name: 'Connect Confluence' }).click();
        }
      };
      const site = confluence.baseUrl;

      // A wrong API token: the service's own refusal, next to the form; nothing is connected.
      await fill({ site, email: 'ann@acme.com', token: 'not-the-token', space: 'ENG' });
      const refusal = page.getByRole('alert').filter({ hasText: 'Wiki credentials rejected' });
      await refusal.waitFor();
      expect(await refusal.textContent()).toContain(site);
      expect(await page.getByRole('button', { name: 'Sync now' }).count()).toBe(0);

      // An unknown space, with the right token.
      await fill({ site, email: 'ann@acme.com', token: confluence.apiToken, space: 'NOPE' });
      await page.getByRole('alert').filter({ hasText: 'Wiki space not found' }).waitFor();

      // The right settings connect, and the first sync of the space runs and finishes.
      await fill({ site, email: 'ann@acme.com', token: confluence.apiToken, space: 'ENG' });
      await page.getByRole('button', { name: 'Sync now' }).waitFor();
      expect(await page.getByRole('button', { name: 'Save' }).count()).toBe(1);
      expect(await page.getByRole('button', { name: 'Connect Confluence' }).count()).toBe(0);
      expect(await page.getByLabel('API token').inputValue()).toBe('');
      expect(await page.getByLabel('Space key').inputValue()).toBe('ENG');
      // The summary is announced (a live region) when the sync is over.
      await page
        .getByRole('status')
        .filter({ hasText: /^Sync finished: \d+ pages, \d+ indexed/ })
        .waitFor({ timeout: 120_000 });
      await expect.poll(() => fact(page, 'Last sync').textContent()).not.toBe('never');
      expect(await fact(page, 'Space').textContent()).toBe('ENG');
      expect(await fact(page, 'Status').textContent()).toBe('active');

      // A page added since: "Sync now" fetches it alone (the others are unchanged), with its progress.
      const added = `Release notes ${viewport.width}`;
      confluence.putPage('ENG', { title: added, storageBody: pageBody(added) });
      if (keyboard) {
        await page.getByRole('button', { name: 'Sync now' }).focus();
        await page.keyboard.press('Enter');
      } else {
        await page.getByRole('button', { name: 'Sync now' }).click();
      }
      await page
        .getByRole('status')
        .filter({ hasText: /^Sync finished: \d+ pages, 1 indexed, \d+ skipped \(unchanged\), 0 failed\.$/ })
        .waitFor({ timeout: 120_000 });
      expect(await page.getByRole('progressbar', { name: 'Sync progress' }).count()).toBe(1);
      await expect
        .poll(() => fact(page, 'Documents').textContent())
        .toBe(String(SPACE_PAGES.length + 1 + (keyboard ? 1 : 0)));

      if (viewport === PHONE) {
        const overflow = await page.evaluate(() => {
          const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } })
            .document.documentElement;
          return root.scrollWidth;
        });
        expect(overflow).toBeLessThanOrEqual(PHONE.width);
      }

      // The space's pages are on the Documents page, indexed.
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Documents' }).click();
      await page.getByRole('heading', { name: 'Documents', level: 1 }).waitFor();
      for (const title of [...SPACE_PAGES, added]) {
        await page
          .getByRole('row')
          .filter({ hasText: title })
          .filter({ hasText: 'indexed' })
          .first()
          .waitFor({ timeout: 120_000 });
      }

      expect(foreignRequests).toEqual([]);
      expect(pageErrors).toEqual([]);
    }, 600_000);
  }

  it("shows the team's Slack workspace (only Remove to press on a server without Slack's client), a saved connector's settings without its token, and passes axe", async () => {
    const { page, pageErrors } = await open();
    const audit = async (label: string) => {
      const results = await new AxeBuilder({ page }).analyze();
      const severe = results.violations
        .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
        .map((violation) => `${label}: ${violation.id} (${violation.nodes.length})`);
      expect(severe).toEqual([]);
    };
    await createAccount(page, 'connector-axe@example.com');
    await openConnectors(page);
    expect(await page.getByRole('region', { name: 'Slack' }).getByText('Not installed.').count()).toBe(1);
    // A refusal shown, then audited.
    await page.getByRole('button', { name: 'Connect Confluence' }).click();
    await expect.poll(() => page.getByLabel('API token').getAttribute('aria-invalid')).toBe('true');
    await audit('connectors, empty fields refused');

    // A Slack installation the team already has (from a sign-in with Slack): named, nothing to press.
    const teamId = await page.evaluate(async () => {
      const response = await fetch('/v1/users/me');
      return ((await response.json()) as { team_id: number }).team_id;
    });
    await app.service.runtime.database.sql.executeSql(
      `INSERT INTO connectors (team_id, slug, name, status, config, secrets_sealed, external_id)
       VALUES ($1, 'chatapp', 'Slack: Acme workspace', 'active', '{"slack_team_name": "Acme workspace"}'::jsonb, 'sealed', $2)`,
      [teamId, `T-axe-${teamId}`],
    );
    await page.getByLabel('Site').fill(confluence.baseUrl);
    await page.getByLabel('Email', { exact: true }).fill('ann@acme.com');
    await page.getByLabel('API token').fill(confluence.apiToken);
    await page.getByLabel('Space key').fill('ENG');
    await page.getByRole('button', { name: 'Connect Confluence' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^Sync finished:/ })
      .waitFor({ timeout: 120_000 });
    const slack = page.getByRole('region', { name: 'Slack' });
    await slack.getByText('The bot answers in the workspace Acme workspace').waitFor();
    // No Slack client to reinstall with; the owner may still remove the installation.
    expect(await slack.getByRole('button').allTextContents()).toEqual(['Remove']);
    expect(await page.getByRole('region', { name: 'Google Drive' }).getByRole('button').count()).toBe(0);
    await audit('connectors, connected and synced');

    // Opened afresh: the saved settings fill the form, the token never does.
    await page.reload();
    await page.getByRole('button', { name: 'Save' }).waitFor();
    expect(await page.getByLabel('Site').inputValue()).toBe(confluence.baseUrl);
    expect(await page.getByLabel('Email', { exact: true }).inputValue()).toBe('ann@acme.com');
    expect(await page.getByLabel('Space key').inputValue()).toBe('ENG');
    expect(await page.getByLabel('API token').inputValue()).toBe('');
    expect(await page.content()).not.toContain(confluence.apiToken);
    expect(await fact(page, 'Last sync').textContent()).not.toBe('never');
    expect(
      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'Connectors' })
        .getAttribute('aria-current'),
    ).toBe('page');
    expect(pageErrors).toEqual([]);
  }, 600_000);
});

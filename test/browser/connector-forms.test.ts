import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeSlackServer } from '../fakes/fake-slack-server.js';
import { browserTestsEnabled, DESKTOP, PHONE } from '../helpers/browser.js';
import {
  type BrowserService,
  createAccount,
  freePort,
  openFromMainNav,
  startBrowserService,
  TEST_PASSWORD,
} from '../helpers/browser-service.js';

const SLACK_CLIENT_ID = '1234567890.0987654321';
const SLACK_CLIENT_SECRET = 'connector-forms-slack-secret';

async function openConnectors(page: Page): Promise<void> {
  await openFromMainNav(page, 'Connectors');
  await page.getByRole('heading', { name: 'Slack', level: 2 }).waitFor();
}

/** The text of what describes an input (its aria-describedby): hint and error, as a screen reader reads them. */
async function descriptionOf(page: Page, label: string): Promise<string> {
  const ids = (await page.getByLabel(label, { exact: true }).getAttribute('aria-describedby')) ?? '';
  const parts: string[] = [];
  for (const id of ids.split(' ').filter((part) => part !== '')) {
    parts.push((await page.locator(`[id="${id}"]`).textContent()) ?? '');
  }
  return parts.join(' ');
}

async function severeViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id} (${violation.nodes.length})`);
}

/**
 * A server with Slack's OAuth client and no wiki of its own (no WIKI_BASE_URL): the Confluence form
 * must ask for the site, and an installed Slack workspace offers Reinstall and, to managers, Remove.
 */
describe.skipIf(!browserTestsEnabled())(
  'the Confluence and Slack forms of the Connectors page, in Chromium',
  () => {
    let slack: FakeSlackServer;
    let app: BrowserService;
    let slackOrigin: string;

    beforeAll(async () => {
      const port = await freePort();
      const origin = `http://127.0.0.1:${port}`;
      slack = await FakeSlackServer.start();
      slack.registerApp({
        clientId: SLACK_CLIENT_ID,
        clientSecret: SLACK_CLIENT_SECRET,
        redirectUri: `${origin}/connectors/slack/callback`,
      });
      slackOrigin = new URL(slack.authorizeUrl).origin;
      app = await startBrowserService({
        port,
        worker: true,
        env: {
          PUBLIC_URL: origin,
          SLACK_CLIENT_ID,
          SLACK_CLIENT_SECRET,
          SLACK_API_URL: slack.url,
          SLACK_AUTHORIZE_URL: slack.authorizeUrl,
        },
      });
    });
    afterAll(async () => {
      await app?.close();
      await slack?.close();
    });

    for (const [size, viewport] of [
      ['desktop', DESKTOP],
      ['375 px, by keyboard', PHONE],
    ] as const) {
      it(`asks for the Confluence site up front when the server has no wiki, without offering to leave it empty (${size})`, async () => {
        const { page, pageErrors } = await app.open(viewport);
        await createAccount(page, `wiki-form-${viewport.width}@example.com`);
        await openConnectors(page);
        const site = page.getByLabel('Site', { exact: true });
        expect(await site.getAttribute('required')).not.toBeNull();
        expect(await descriptionOf(page, 'Site')).toBe('Required: your Confluence address.');
        expect(await page.getByText(/leave it empty to use the wiki/i).count()).toBe(0);

        // Everything but the site filled in: the site is refused before anything is sent, and has focus.
        await page.getByLabel('Email', { exact: true }).fill('ann@acme.com');
        await page.getByLabel('API token', { exact: true }).fill('ATATT-some-token');
        await page.getByLabel('Space key', { exact: true }).fill('ENG');
        const saves: string[] = [];
        page.on('request', (request) => {
          if (request.url().endsWith('/v1/wiki/config')) saves.push(request.method());
        });
        if (viewport === PHONE) {
          await page.getByRole('button', { name: 'Connect Confluence', exact: true }).focus();
          await page.keyboard.press('Enter');
        } else {
          await page.getByRole('button', { name: 'Connect Confluence', exact: true }).click();
        }
        await expect.poll(() => site.getAttribute('aria-invalid')).toBe('true');
        expect(await descriptionOf(page, 'Site')).toBe(
          'Required: your Confluence address. Enter your Confluence site’s address.',
        );
        await expect.poll(() => page.evaluate<string>('document.activeElement?.id ?? ""')).toBe('wiki-site');
        expect(saves).toEqual([]);
        expect(await severeViolations(page)).toEqual([]);
        expect(pageErrors).toEqual([]);
      });
    }

    it('keeps "Add to Slack" the main button until installed, then offers Reinstall and Remove, which asks first and uninstalls', async () => {
      const watched = await app.open(DESKTOP, [slackOrigin]);
      const { page } = watched;
      await createAccount(page, 'slack-owner@example.com');
      await openConnectors(page);
      const section = page.getByRole('region', { name: 'Slack' });
      const addToSlack = section.getByRole('button', { name: 'Add to Slack', exact: true });
      expect(await addToSlack.getAttribute('class')).toContain('button-primary');
      expect(await section.getByRole('button', { name: 'Reinstall', exact: true }).count()).toBe(0);
      expect(await section.getByRole('button', { name: 'Remove', exact: true }).count()).toBe(0);

      slack.approveNextInstall(SLACK_CLIENT_ID, { teamId: 'T0FORMS01', teamName: 'Acme Robotics' });
      await addToSlack.click();
      await section.getByText('Installed in Acme Robotics.').waitFor();
      await section.getByText('The bot answers in the workspace Acme Robotics').waitFor();
      // Installed: the workspace's own actions replace "Add to Slack"; Reinstall is secondary.
      const reinstall = section.getByRole('button', { name: 'Reinstall', exact: true });
      const remove = section.getByRole('button', { name: 'Remove', exact: true });
      await reinstall.waitFor();
      expect(await reinstall.getAttribute('class')).toContain('button-secondary');
      expect(await remove.count()).toBe(1);
      expect(await addToSlack.count()).toBe(0);
      expect(await section.locator('.button-primary').count()).toBe(0);
      expect(await severeViolations(page)).toEqual([]);

      // Reinstall goes through Slack again, for that workspace, and leaves one installation.
      slack.approveNextInstall(SLACK_CLIENT_ID, { teamId: 'T0FORMS01', teamName: 'Acme Robotics' });
      await reinstall.click();
      await section.getByText('Installed in Acme Robotics.').waitFor();
      expect(slack.authorizations.at(-1)).toMatchObject({ client_id: SLACK_CLIENT_ID, team: 'T0FORMS01' });
      await reinstall.waitFor();
      const slackConnectors = async () =>
        (
          (await (await page.request.get('/v1/connectors')).json()) as { connectors: { slug: string }[] }
        ).connectors.filter((connector) => connector.slug === 'chatapp');
      expect(await slackConnectors()).toHaveLength(1);

      // Remove asks first: Cancel keeps the bot.
      await remove.click();
      const dialog = page.getByRole('dialog', { name: 'Remove the Slack bot?' });
      await dialog.waitFor();
      expect(await dialog.textContent()).toContain('The bot stops answering in Acme Robotics.');
      await dialog.getByRole('button', { name: 'Cancel', exact: true }).click();
      await dialog.waitFor({ state: 'hidden' });
      expect(await slackConnectors()).toHaveLength(1);
      expect(await remove.count()).toBe(1);

      // Confirmed: the installation is gone, and "Add to Slack" is the main button again.
      await remove.click();
      await dialog.getByRole('button', { name: 'Remove', exact: true }).click();
      await section.getByText('Not installed.').waitFor();
      await addToSlack.waitFor();
      expect(await section.getByText('Removed from Acme Robotics.').count()).toBe(1);
      expect(await remove.count()).toBe(0);
      expect(await slackConnectors()).toEqual([]);
      await expect
        .poll(() => page.evaluate<string>('document.activeElement?.id ?? ""'))
        .toBe('slack-heading');
      expect(watched.foreignRequests).toEqual([]);
      expect(watched.pageErrors).toEqual([]);
    });

    it('shows a member the workspace without Remove, Reinstall or Add to Slack (375 px)', async () => {
      const owner = await app.open(DESKTOP, [slackOrigin]);
      await createAccount(owner.page, 'slack-team-owner@example.com');
      await openConnectors(owner.page);
      slack.approveNextInstall(SLACK_CLIENT_ID, { teamId: 'T0FORMS02', teamName: 'Beta Works' });
      await owner.page.getByRole('button', { name: 'Add to Slack', exact: true }).click();
      await owner.page.getByText('Installed in Beta Works.').waitFor();

      const memberEmail = 'slack-team-member@example.com';
      const invited = await owner.page.request.post('/v1/teams/invitations', {
        headers: { origin: app.origin },
        data: { email: memberEmail, role: 'member' },
      });
      expect(invited.status(), await invited.text()).toBe(201);
      const { code } = (await invited.json()) as { code: string };
      const member = await app.open(PHONE);
      const joined = await member.page.request.post('/v2/users/register', {
        data: { email: memberEmail, password: TEST_PASSWORD, name: 'Mo', invitation: code },
      });
      expect(joined.status(), await joined.text()).toBe(201);
      const signedIn = await member.page.request.post('/v1/auth/session', {
        headers: { origin: app.origin },
        data: { email: memberEmail, password: TEST_PASSWORD },
      });
      expect(signedIn.status(), await signedIn.text()).toBe(200);
      await member.page.goto('/');
      await openConnectors(member.page);
      const section = member.page.getByRole('region', { name: 'Slack' });
      await section.getByText('The bot answers in the workspace Beta Works').waitFor();
      expect(await section.getByRole('button').count()).toBe(0);
      expect(member.pageErrors).toEqual([]);
    });
  },
);

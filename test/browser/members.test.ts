import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserTestsEnabled } from '../helpers/browser.js';
import {
  type BrowserService,
  openFromMainNav,
  startBrowserService,
  TEST_PASSWORD,
} from '../helpers/browser-service.js';

const ANN = 'ann@example.com';
const BOB = 'bob@example.com';

interface MembersAnswer {
  members: { user_id: number; email: string; name: string; role: string }[];
}

async function members(page: Page): Promise<MembersAnswer['members']> {
  const response = await page.request.get('/v1/teams/members');
  expect(response.status()).toBe(200);
  return ((await response.json()) as MembersAnswer).members;
}

async function seriousViolations(page: Page): Promise<string[]> {
  const audit = await new AxeBuilder({ page }).analyze();
  return audit.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => violation.id);
}

describe.skipIf(!browserTestsEnabled())('team members, in Chromium', () => {
  let app: BrowserService;
  beforeAll(async () => {
    app = await startBrowserService({ worker: false });
  });
  afterAll(() => app?.close());

  it('Ann invites Bob by a copied link, Bob joins from it, Ann makes him admin and removes him', async () => {
    const ann = await app.open();
    const { page } = ann;
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.origin });

    // Ann signs up: a team of her own, which she owns.
    await page.goto('/');
    await page.getByLabel('Email', { exact: true }).fill(ANN);
    await page.getByLabel('Password', { exact: true }).fill(TEST_PASSWORD);
    await page.getByLabel('Name', { exact: true }).fill('Ann');
    await page.getByRole('button', { name: 'Create account', exact: true }).click();
    await openFromMainNav(page, 'Members');
    const table = page.getByRole('table');
    await table.getByRole('row').filter({ hasText: ANN }).waitFor();
    expect(await table.getByRole('row').filter({ hasText: ANN }).textContent()).toContain('owner');

    // She invites Bob as a member and copies the link the invitation shows.
    await page.getByRole('textbox', { name: 'Email', exact: true }).fill(BOB);
    await page.getByRole('combobox', { name: 'Role', exact: true }).selectOption('member');
    await page.getByRole('button', { name: 'Invite', exact: true }).click();
    const linkBox = page.getByRole('textbox', { name: 'Invitation link' });
    await linkBox.waitFor();
    const link = await linkBox.inputValue();
    expect(link).toMatch(new RegExp(`^${app.origin}/join\\?invitation=[^&]+$`));
    await page.getByRole('button', { name: 'Copy link', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Copied.' }).waitFor();
    const copied = await page.evaluate<string>('navigator.clipboard.readText()');
    expect(copied).toBe(link);
    const openInvitations = page.getByRole('list', { name: 'Open invitations' });
    await openInvitations
      .getByRole('button', { name: `Withdraw invitation for ${BOB}`, exact: true })
      .waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    // Bob, in a browser of his own, signed out, opens the link and joins.
    const bob = await app.open();
    await bob.page.goto(copied);
    await bob.page.getByRole('heading', { name: 'Join your team', level: 1 }).waitFor();
    await bob.page.getByLabel('Email', { exact: true }).fill(BOB);
    await bob.page.getByLabel('Name', { exact: true }).fill('Bob');
    await bob.page.getByLabel('Password', { exact: true }).fill(TEST_PASSWORD);
    await bob.page.getByRole('button', { name: 'Join team', exact: true }).click();
    await bob.page.getByRole('navigation', { name: 'Main' }).waitFor();
    expect(new URL(bob.page.url()).pathname).toBe('/');
    // A member sees the team, and nothing to change it with.
    await openFromMainNav(bob.page, 'Members');
    await bob.page.getByRole('table').getByRole('row').filter({ hasText: ANN }).waitFor();
    expect(await bob.page.getByRole('button', { name: 'Invite', exact: true }).count()).toBe(0);
    expect(await bob.page.getByRole('combobox').count()).toBe(0);
    expect(await bob.page.getByRole('button', { name: /^Remove / }).count()).toBe(0);

    // Ann sees Bob in the team; his invitation, used, is no longer open.
    await page.reload();
    const bobRow = table.getByRole('row').filter({ hasText: BOB });
    await bobRow.waitFor();
    expect(await bobRow.textContent()).toContain('Bob');
    await page.getByText('No open invitations.').waitFor();

    // She makes him an admin.
    const bobsRole = page.getByRole('combobox', { name: `Role of ${BOB}`, exact: true });
    expect(await bobsRole.inputValue()).toBe('member');
    const roleSaved = page.waitForResponse(
      (response) => response.request().method() === 'PATCH' && response.url().includes('/v1/teams/members/'),
    );
    await bobsRole.selectOption('admin');
    expect((await roleSaved).ok()).toBe(true);
    await expect
      .poll(async () => (await members(page)).find((member) => member.email === BOB)?.role)
      .toBe('admin');
    expect(await bobsRole.inputValue()).toBe('admin');

    // And removes him, confirming in a dialog: he is out of the team, and his session ends.
    await page.getByRole('button', { name: `Remove ${BOB}`, exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove this member?' });
    await dialog.getByRole('button', { name: 'Remove', exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });
    await bobRow.waitFor({ state: 'detached' });
    expect((await members(page)).map((member) => member.email)).toEqual([ANN]);
    await expect.poll(async () => (await bob.page.request.get('/v1/users/me')).status()).toBe(401);

    for (const watched of [ann, bob]) {
      expect(watched.foreignRequests).toEqual([]);
      expect(watched.pageErrors).toEqual([]);
      expect(watched.dialogs).toEqual([]);
    }
  }, 600_000);
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  startTestApp,
  TEST_REGISTRATION_SECRET,
  type TestApp,
  uniqueSuffix,
} from '../../test/helpers/test-app.js';
import {
  invitedMember,
  refusal,
  type SignedInUser,
  signedInUser,
} from '../../test/helpers/use-case-harness.js';
import { getTeamSettings } from './get-team-settings.js';
import { updateTeamSettings } from './update-team-settings.js';

const PROVEN = bearer(TEST_REGISTRATION_SECRET);

describe('updateTeamSettings', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp();
  });
  afterAll(() => testApp.close());

  const companyDomain = () => `c-${uniqueSuffix()}.example`;
  const provenOwner = (domain: string): Promise<SignedInUser> =>
    signedInUser(testApp, { email: `owner-${uniqueSuffix()}@${domain}` }, PROVEN);
  const claim = (user: SignedInUser, domains: readonly string[]) =>
    updateTeamSettings(testApp.runtime.deps, user.caller, { sign_in_domains: domains });

  it('claims the caller’s own domain in its stored spelling, which single sign-on finds the team by', async () => {
    const { deps } = testApp.runtime;
    const label = `bücher-${uniqueSuffix()}`;
    const owner = await signedInUser(testApp, { email: `owner@${label}.example` }, PROVEN);
    const ascii = owner.caller.email.split('@')[1] ?? '';
    expect(ascii).toMatch(/^xn--/);
    // The Unicode spelling, upper case and a trailing dot all name the stored ASCII one.
    expect(await claim(owner, [`${label.toUpperCase()}.example.`, ascii])).toEqual({
      sign_in_domains: [ascii],
    });
    expect(await deps.data.signInPlacement.findTeamClaimingDomain(ascii)).toBe(owner.caller.teamId);
    expect(await claim(owner, [])).toEqual({ sign_in_domains: [] });
    expect(await deps.data.signInPlacement.findTeamClaimingDomain(ascii)).toBeUndefined();
  });

  it('refuses a domain another team holds (409), and any new one but the caller’s own (403)', async () => {
    const domain = companyDomain();
    const first = await provenOwner(domain);
    const second = await provenOwner(domain);
    await claim(first, [domain]);
    const taken = await refusal(claim(second, [domain]), 'conflict');
    expect(taken.message).toBe(`${domain} is claimed by another team`);
    const foreign = await refusal(claim(second, [companyDomain()]), 'forbidden');
    expect(foreign.message).toContain(`You may claim only ${domain}`);
    expect(await getTeamSettings(testApp.runtime.deps, second.caller)).toEqual({ sign_in_domains: [] });
    // Once the first team lets it go, the second may claim it.
    await claim(first, []);
    expect(await claim(second, [domain])).toEqual({ sign_in_domains: [domain] });
  });

  it('refuses an unproven caller any new domain, and members anything', async () => {
    const domain = companyDomain();
    const unproven = await signedInUser(testApp, { email: `pat@${domain}` });
    expect(unproven.caller.emailVerified).toBe(false);
    const refused = await refusal(claim(unproven, [domain]), 'forbidden');
    expect(refused.message).toContain(`verify it (POST /v1/users/me/verify-email) to claim ${domain}`);

    const owner = await provenOwner(domain);
    await claim(owner, [domain]);
    const member = await invitedMember(testApp, owner, 'member', { email: `m@${domain}` }, PROVEN);
    await refusal(claim(member, [domain]), 'forbidden');
    await refusal(claim(member, []), 'forbidden');
    expect(await getTeamSettings(testApp.runtime.deps, owner.caller)).toEqual({ sign_in_domains: [domain] });
  });

  it('reports every malformed or public domain at its index, and checks them before anything else', async () => {
    const owner = await provenOwner(companyDomain());
    const refused = await refusal(
      claim(owner, [
        'ok.example',
        'yahoo.com',
        'ftp://x.example',
        'x.example/path',
        'a b.example',
        'example',
      ]),
      'validation',
    );
    expect(refused.options.issues?.map((issue) => [issue.loc[2], issue.type])).toEqual([
      [1, 'value_error'],
      [2, 'value_error'],
      [3, 'value_error'],
      [4, 'value_error'],
      [5, 'value_error'],
    ]);
    expect(refused.options.issues?.[0]?.msg).toContain('anyone can have an address there');
    // A member's malformed list is still a 403: who may change the settings is checked first.
    const member = await invitedMember(testApp, owner, 'member');
    await refusal(claim(member, ['not a domain']), 'forbidden');
  });

  it('keeps at most 50 domains, counted once each', async () => {
    const domain = companyDomain();
    const owner = await provenOwner(domain);
    // Kept by this team already (as if claimed over time by its admins): they may stay.
    const held = Array.from({ length: 50 }, (_, index) => `d${index}.${domain}`);
    await testApp.runtime.database.sql.executeSql(
      'INSERT INTO team_sign_in_domains (domain, team_id) SELECT unnest($1::text[]), $2',
      [held, owner.caller.teamId],
    );
    const again = await claim(owner, [...held, ...held.map((name) => name.toUpperCase())]);
    expect(again.sign_in_domains).toHaveLength(50);
    const tooMany = await refusal(claim(owner, [...held, domain]), 'validation');
    expect(tooMany.options.issues).toEqual([
      expect.objectContaining({ type: 'too_long', loc: ['body', 'sign_in_domains'] }),
    ]);
  });
});

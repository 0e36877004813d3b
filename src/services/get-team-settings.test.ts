import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  startTestApp,
  TEST_REGISTRATION_SECRET,
  type TestApp,
  uniqueSuffix,
} from '../../test/helpers/test-app.js';
import { invitedMember, refusal, signedInUser } from '../../test/helpers/use-case-harness.js';
import { getTeamSettings } from './get-team-settings.js';
import { updateTeamSettings } from './update-team-settings.js';

describe('getTeamSettings', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp();
  });
  afterAll(() => testApp.close());

  it("shows owners and admins the team's own sign-in domains, sorted; a member gets 403", async () => {
    const { deps } = testApp.runtime;
    const domain = `b-${uniqueSuffix()}.example`;
    const owner = await signedInUser(testApp, { email: `o@${domain}` }, bearer(TEST_REGISTRATION_SECRET));
    const admin = await invitedMember(
      testApp,
      owner,
      'admin',
      { email: `a@a-${domain}` },
      bearer(TEST_REGISTRATION_SECRET),
    );
    const member = await invitedMember(testApp, owner, 'member');
    const stranger = await signedInUser(testApp);
    await updateTeamSettings(deps, owner.caller, { sign_in_domains: [domain] });
    await updateTeamSettings(deps, admin.caller, { sign_in_domains: [domain, `a-${domain}`] });

    const expected = { sign_in_domains: [`a-${domain}`, domain] };
    expect(await getTeamSettings(deps, owner.caller)).toEqual(expected);
    expect(await getTeamSettings(deps, admin.caller)).toEqual(expected);
    await refusal(getTeamSettings(deps, member.caller), 'forbidden');
    expect(await getTeamSettings(deps, stranger.caller)).toEqual({ sign_in_domains: [] });
  });
});

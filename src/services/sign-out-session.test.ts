import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/helpers/test-app.js';
import { signedInUser } from '../../test/helpers/use-case-harness.js';
import { signOutSession } from './sign-out-session.js';

describe('signOutSession', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp();
  });
  afterAll(() => testApp.close());

  it('revokes the session’s token and no other', async () => {
    const { deps } = testApp.runtime;
    const browser = await signedInUser(testApp);
    const other = await signedInUser(testApp);
    await signOutSession(deps, browser.token);
    expect(await deps.callers.find(browser.token)).toBeUndefined();
    expect(await deps.callers.find(other.token)).toEqual(other.caller);
  });

  it('leaves a browser without a valid session signed out without an error', async () => {
    const { deps } = testApp.runtime;
    await expect(signOutSession(deps, undefined)).resolves.toBeUndefined();
    await expect(signOutSession(deps, 'not-a-token-anyone-has')).resolves.toBeUndefined();
  });
});

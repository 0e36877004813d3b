import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, uniqueSuffix } from '../../test/helpers/test-app.js';
import { refusal, signedInUser } from '../../test/helpers/use-case-harness.js';
import type { Caller } from '../caller.js';
import { changePassword } from './change-password.js';
import { registerUser } from './register-user.js';
import { signIn } from './sign-in.js';

const ADDRESS = '198.51.100.40';

describe('changePassword', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp();
  });
  afterAll(() => testApp.close());

  /** A password user signed in twice: the session that changes the password and another. */
  async function passwordUser() {
    const { deps } = testApp.runtime;
    const email = `pat-${uniqueSuffix()}@example.com`;
    await registerUser(
      deps,
      { email, password: 'old-password' },
      { bearerToken: undefined, clientAddress: ADDRESS },
    );
    const here = (await signIn(deps, { email, password: 'old-password', clientAddress: ADDRESS }))
      .access_token;
    const there = (await signIn(deps, { email, password: 'old-password', clientAddress: ADDRESS }))
      .access_token;
    const caller = (await deps.callers.find(here)) as Caller;
    return { email, here, there, caller };
  }

  it('sets the new password, keeps this session and ends the others', async () => {
    const { deps } = testApp.runtime;
    const { email, here, there, caller } = await passwordUser();
    await changePassword(
      deps,
      caller,
      { current_password: 'old-password', new_password: 'new-password' },
      ADDRESS,
    );
    expect(await deps.callers.find(here)).toEqual(caller);
    expect(await deps.callers.find(there)).toBeUndefined();
    await refusal(
      signIn(deps, { email, password: 'old-password', clientAddress: ADDRESS }),
      'unauthenticated',
    );
    const signedIn = await signIn(deps, { email, password: 'new-password', clientAddress: ADDRESS });
    expect((await deps.callers.find(signedIn.access_token))?.userId).toBe(caller.userId);
  });

  it('refuses without the right current password and changes nothing', async () => {
    const { deps } = testApp.runtime;
    const { email, there, caller } = await passwordUser();
    const missing = await refusal(
      changePassword(deps, caller, { new_password: 'new-password' }, ADDRESS),
      'validation',
    );
    expect(missing.options.issues?.[0]?.loc).toEqual(['body', 'current_password']);
    await refusal(
      changePassword(
        deps,
        caller,
        { current_password: 'not-it-at-all', new_password: 'new-password' },
        ADDRESS,
      ),
      'forbidden',
    );
    const short = await refusal(
      changePassword(deps, caller, { current_password: 'old-password', new_password: 'short' }, ADDRESS),
      'validation',
    );
    expect(short.options.issues?.[0]?.loc).toEqual(['body', 'new_password']);
    expect(await deps.callers.find(there)).toMatchObject({ userId: caller.userId });
    await signIn(deps, { email, password: 'old-password', clientAddress: ADDRESS });
  });

  it('lets a user without a password (a provider sign-up) set one without a current password', async () => {
    const { deps } = testApp.runtime;
    const user = await signedInUser(testApp);
    await changePassword(deps, user.caller, { new_password: 'first-password' }, ADDRESS);
    const email = (user.body.user as { email: string }).email;
    const signedIn = await signIn(deps, { email, password: 'first-password', clientAddress: ADDRESS });
    expect((await deps.callers.find(signedIn.access_token))?.userId).toBe(user.caller.userId);
  });
});

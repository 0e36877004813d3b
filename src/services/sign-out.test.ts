import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, uniqueSuffix } from '../../test/helpers/test-app.js';
import { registerUser } from './register-user.js';
import { signIn } from './sign-in.js';
import { signOut } from './sign-out.js';

const ADDRESS = '198.51.100.30';

describe('signOut', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp();
  });
  afterAll(() => testApp.close());

  it('revokes the token the caller signed in with, and only that one', async () => {
    const { deps } = testApp.runtime;
    const email = `sam-${uniqueSuffix()}@example.com`;
    await registerUser(
      deps,
      { email, password: 'sam-password' },
      { bearerToken: undefined, clientAddress: ADDRESS },
    );
    const laptop = (await signIn(deps, { email, password: 'sam-password', clientAddress: ADDRESS }))
      .access_token;
    const phone = (await signIn(deps, { email, password: 'sam-password', clientAddress: ADDRESS }))
      .access_token;
    const caller = await deps.callers.find(laptop);
    if (caller === undefined) throw new Error('no caller');
    await signOut(deps, caller);
    // At once, although the directory had just cached the laptop's token.
    expect(await deps.callers.find(laptop)).toBeUndefined();
    expect(await deps.callers.find(phone)).toMatchObject({ userId: caller.userId });
    // Signing out twice is harmless.
    await signOut(deps, caller);
    expect(await deps.callers.find(phone)).toMatchObject({ userId: caller.userId });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, uniqueSuffix } from '../../test/helpers/test-app.js';
import { signedInUser } from '../../test/helpers/use-case-harness.js';
import { registerUser } from './register-user.js';
import { signIn } from './sign-in.js';
import { signOutEverywhere } from './sign-out-everywhere.js';

const ADDRESS = '198.51.100.31';

describe('signOutEverywhere', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp();
  });
  afterAll(() => testApp.close());

  it('revokes every token of the caller’s user, this one included, and no one else’s', async () => {
    const { deps } = testApp.runtime;
    const email = `kim-${uniqueSuffix()}@example.com`;
    const registered = await registerUser(
      deps,
      { email, password: 'kim-password' },
      { bearerToken: undefined, clientAddress: ADDRESS },
    );
    const tokens = [registered.body.access_token];
    for (let index = 0; index < 2; index += 1) {
      tokens.push(
        (await signIn(deps, { email, password: 'kim-password', clientAddress: ADDRESS })).access_token,
      );
    }
    const callers = await Promise.all(tokens.map((token) => deps.callers.find(token)));
    expect(callers.map((caller) => caller?.userId)).toEqual(tokens.map(() => registered.body.user.id));
    const bystander = await signedInUser(testApp);

    await signOutEverywhere(deps, callers[1] ?? expect.fail('no caller'));
    for (const token of tokens) expect(await deps.callers.find(token)).toBeUndefined();
    expect(await deps.callers.find(bystander.token)).toEqual(bystander.caller);
    // The password still signs in afresh.
    const again = await signIn(deps, { email, password: 'kim-password', clientAddress: ADDRESS });
    expect((await deps.callers.find(again.access_token))?.userId).toBe(registered.body.user.id);
  });
});

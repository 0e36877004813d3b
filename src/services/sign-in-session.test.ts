import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, uniqueSuffix } from '../../test/helpers/test-app.js';
import { refusal } from '../../test/helpers/use-case-harness.js';
import { getUserContext } from './get-user-context.js';
import { registerUser } from './register-user.js';
import { signInSession } from './sign-in-session.js';

const ADDRESS = '198.51.100.50';

describe('signInSession', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp({ env: { ACCESS_TOKEN_TTL_SECONDS: '7200' } });
  });
  afterAll(() => testApp.close());

  it('answers the session’s token, its lifetime and the user’s user_context', async () => {
    const { deps } = testApp.runtime;
    const email = `lee-${uniqueSuffix()}@example.com`;
    await registerUser(
      deps,
      { email, password: 'lee-password' },
      { bearerToken: undefined, clientAddress: ADDRESS },
    );
    const session = await signInSession(deps, { email, password: 'lee-password', clientAddress: ADDRESS });
    expect(session.maxAgeSeconds).toBe(7200);
    const caller = await deps.callers.find(session.token);
    expect(caller?.email).toBe(email);
    expect(session.user).toEqual(await getUserContext(deps, caller ?? expect.fail('no caller')));
  });

  it('refuses a wrong password as a token sign-in does', async () => {
    const { deps } = testApp.runtime;
    const email = `max-${uniqueSuffix()}@example.com`;
    await registerUser(
      deps,
      { email, password: 'max-password' },
      { bearerToken: undefined, clientAddress: ADDRESS },
    );
    await refusal(
      signInSession(deps, { email, password: 'not-max', clientAddress: ADDRESS }),
      'unauthenticated',
    );
  });
});

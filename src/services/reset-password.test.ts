import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueSuffix } from '../../test/helpers/test-app.js';
import {
  lastQueuedMail,
  type MailingTestApp,
  refusal,
  startMailingTestApp,
} from '../../test/helpers/use-case-harness.js';
import { registerUser } from './register-user.js';
import { requestPasswordReset } from './request-password-reset.js';
import { resetPassword } from './reset-password.js';
import { signIn } from './sign-in.js';

const ADDRESS = '192.0.2.10';

describe('resetPassword', () => {
  let mailing: MailingTestApp;
  beforeAll(async () => {
    mailing = await startMailingTestApp();
  });
  afterAll(() => mailing.close());

  async function userWithResetCode() {
    const { deps } = mailing.testApp.runtime;
    const email = `rae-${uniqueSuffix()}@example.com`;
    const registered = await registerUser(
      deps,
      { email, password: 'old-password' },
      { bearerToken: undefined, clientAddress: ADDRESS },
    );
    await requestPasswordReset(deps, { email }, ADDRESS);
    const { code } = await lastQueuedMail(mailing.testApp, registered.body.user.id, 'reset_password');
    return { email, userId: registered.body.user.id, oldToken: registered.body.access_token, code };
  }

  it('sets the new password, ends every session and answers a fresh token', async () => {
    const { deps } = mailing.testApp.runtime;
    const { email, userId, oldToken, code } = await userWithResetCode();
    const answer = await resetPassword(deps, { code, new_password: 'new-password' });
    expect(answer.token_type).toBe('bearer');
    expect((await deps.callers.find(answer.access_token))?.userId).toBe(userId);
    expect(await deps.callers.find(oldToken)).toBeUndefined();
    await refusal(
      signIn(deps, { email, password: 'old-password', clientAddress: ADDRESS }),
      'unauthenticated',
    );
    await signIn(deps, { email, password: 'new-password', clientAddress: ADDRESS });
  });

  it('takes a code once, and not once a newer one replaced it', async () => {
    const { deps } = mailing.testApp.runtime;
    const first = await userWithResetCode();
    await resetPassword(deps, { code: first.code, new_password: 'new-password' });
    await refusal(resetPassword(deps, { code: first.code, new_password: 'other-password' }), 'bad_request');

    const second = await userWithResetCode();
    await requestPasswordReset(deps, { email: second.email }, ADDRESS);
    const newer = await lastQueuedMail(mailing.testApp, second.userId, 'reset_password');
    expect(newer.code).not.toBe(second.code);
    await refusal(resetPassword(deps, { code: second.code, new_password: 'other-password' }), 'bad_request');
    await resetPassword(deps, { code: newer.code, new_password: 'other-password' });
    await signIn(deps, { email: second.email, password: 'other-password', clientAddress: ADDRESS });
  });

  it('refuses a made-up code and a short password, changing nothing', async () => {
    const { deps } = mailing.testApp.runtime;
    const { email, oldToken, code } = await userWithResetCode();
    await refusal(resetPassword(deps, { code: 'made-up-code', new_password: 'new-password' }), 'bad_request');
    const short = await refusal(resetPassword(deps, { code, new_password: 'short' }), 'validation');
    expect(short.options.issues?.[0]?.loc).toEqual(['body', 'new_password']);
    expect(await deps.callers.find(oldToken)).toBeDefined();
    await signIn(deps, { email, password: 'old-password', clientAddress: ADDRESS });
  });
});

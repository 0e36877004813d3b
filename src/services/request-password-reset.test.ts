import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueSuffix } from '../../test/helpers/test-app.js';
import {
  type MailingTestApp,
  queuedAccountEmails,
  refusal,
  signedInUser,
  startMailingTestApp,
} from '../../test/helpers/use-case-harness.js';
import { RESET_REQUESTED, requestPasswordReset } from './request-password-reset.js';
import { resetPassword } from './reset-password.js';

describe('requestPasswordReset', () => {
  let mailing: MailingTestApp;
  beforeAll(async () => {
    mailing = await startMailingTestApp();
  });
  afterAll(() => mailing.close());

  it('queues a reset code for an account’s address, and answers the same for an unknown one', async () => {
    const { testApp } = mailing;
    const { deps } = testApp.runtime;
    const { caller } = await signedInUser(testApp);
    const known = await requestPasswordReset(deps, { email: caller.email.toUpperCase() }, '192.0.2.1');
    const unknown = await requestPasswordReset(
      deps,
      { email: `nobody-${uniqueSuffix()}@example.com` },
      '192.0.2.1',
    );
    expect(known).toEqual({ detail: RESET_REQUESTED });
    expect(unknown).toEqual(known);
    const [mail, ...more] = await queuedAccountEmails(testApp, caller.userId, 'reset_password');
    expect(more).toHaveLength(0);
    // The queued code is the one that resets the password.
    const reset = await resetPassword(deps, { code: mail?.code ?? '', new_password: 'brand-new-password' });
    expect((await deps.callers.find(reset.access_token))?.userId).toBe(caller.userId);
  });

  it('mails an account at most three codes an hour, and refuses an address past ten requests', async () => {
    const { deps } = mailing.testApp.runtime;
    const { caller } = await signedInUser(mailing.testApp);
    for (let request = 0; request < 5; request += 1) {
      await requestPasswordReset(deps, { email: caller.email }, '192.0.2.2');
    }
    expect(await queuedAccountEmails(mailing.testApp, caller.userId, 'reset_password')).toHaveLength(3);
    for (let request = 5; request < 10; request += 1) {
      await requestPasswordReset(deps, { email: caller.email }, '192.0.2.2');
    }
    const blocked = await refusal(
      requestPasswordReset(deps, { email: caller.email }, '192.0.2.2'),
      'too_many_requests',
    );
    expect(blocked.options.retryAfterSeconds).toBeGreaterThan(0);
    // Another address is not blocked.
    await requestPasswordReset(deps, { email: caller.email }, '192.0.2.3');
  });

  it('refuses an address no account could have, and works only with a mail server', async () => {
    const { deps } = mailing.testApp.runtime;
    const invalid = await refusal(
      requestPasswordReset(deps, { email: 'no at sign' }, '192.0.2.4'),
      'validation',
    );
    expect(invalid.options.issues?.[0]?.loc).toEqual(['body', 'email']);
    // The same service without SMTP_URL.
    const { caller } = await signedInUser(mailing.testApp);
    const noMailer = { ...deps, mailer: undefined };
    await refusal(requestPasswordReset(noMailer, { email: caller.email }, '192.0.2.4'), 'unavailable');
    expect(await queuedAccountEmails(mailing.testApp, caller.userId, 'reset_password')).toHaveLength(0);
  });
});

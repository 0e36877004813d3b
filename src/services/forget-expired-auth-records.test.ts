import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, uniqueSuffix } from '../../test/helpers/test-app.js';
import { lastQueuedMail, refusal, signedInUser } from '../../test/helpers/use-case-harness.js';
import { forgetExpiredAuthRecords } from './forget-expired-auth-records.js';
import { queueAccountEmail } from './queue-account-email.js';
import { resetPassword } from './reset-password.js';
import { signIn } from './sign-in.js';
import { verifyEmail } from './verify-email.js';

const HOUR = 3600 * 1000;

describe('forgetExpiredAuthRecords', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp();
  });
  afterAll(() => testApp.close());

  const at = (offsetMs: number) => ({
    data: testApp.runtime.deps.data,
    now: () => new Date(Date.now() + offsetMs),
  });

  it('deletes the mailed codes that expired, keeping the ones that still work', async () => {
    const { deps } = testApp.runtime;
    const { caller } = await signedInUser(testApp);
    // A reset code works for an hour, a verification code for a day.
    await queueAccountEmail(deps, caller.userId, 'reset_password');
    await queueAccountEmail(deps, caller.userId, 'verify_email');
    const reset = await lastQueuedMail(testApp, caller.userId, 'reset_password');
    const verify = await lastQueuedMail(testApp, caller.userId, 'verify_email');

    expect((await forgetExpiredAuthRecords(at(0))).codes).toBe(0);
    expect((await forgetExpiredAuthRecords(at(2 * HOUR))).codes).toBe(1);
    expect((await forgetExpiredAuthRecords(at(2 * HOUR))).codes).toBe(0);
    await refusal(resetPassword(deps, { code: reset.code, new_password: 'new-password' }), 'bad_request');
    expect(await verifyEmail(deps, verify.code)).toMatchObject({ email: caller.email });
  });

  it('forgets throttle records a day after their last event, not before', async () => {
    const { deps } = testApp.runtime;
    const email = `nobody-${uniqueSuffix()}@example.com`;
    // A failed sign-in counts against the name and the address.
    await refusal(signIn(deps, { email, password: 'guess', clientAddress: '192.0.2.99' }), 'unauthenticated');
    expect((await forgetExpiredAuthRecords(at(HOUR))).throttles).toBe(0);
    expect((await forgetExpiredAuthRecords(at(25 * HOUR))).throttles).toBeGreaterThanOrEqual(2);
    expect((await forgetExpiredAuthRecords(at(25 * HOUR))).throttles).toBe(0);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/helpers/test-app.js';
import { queuedAccountEmails, refusal, signedInUser } from '../../test/helpers/use-case-harness.js';
import { queueAccountEmail } from './queue-account-email.js';
import { resetPassword } from './reset-password.js';
import { verifyEmail } from './verify-email.js';

describe('queueAccountEmail', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp();
  });
  afterAll(() => testApp.close());

  it('queues one mail job per code, sealed, and only the newest code of a purpose works', async () => {
    const { deps } = testApp.runtime;
    const { caller } = await signedInUser(testApp);
    await queueAccountEmail(deps, caller.userId, 'verify_email');
    await queueAccountEmail(deps, caller.userId, 'verify_email');
    const mails = await queuedAccountEmails(testApp, caller.userId, 'verify_email');
    expect(mails).toHaveLength(2);
    const [older, newer] = mails;
    expect(older?.code).not.toBe(newer?.code);
    // The job table holds the code sealed, never as it is mailed.
    expect(newer?.payload.sealedCode).not.toContain(newer?.code ?? '');
    await refusal(verifyEmail(deps, older?.code ?? ''), 'bad_request');
    expect(await verifyEmail(deps, newer?.code ?? '')).toMatchObject({ email: caller.email });
  });

  it('keeps each purpose’s code apart: a reset code does not verify, and a new one does not end the other', async () => {
    const { deps } = testApp.runtime;
    const { caller } = await signedInUser(testApp);
    await queueAccountEmail(deps, caller.userId, 'reset_password');
    await queueAccountEmail(deps, caller.userId, 'verify_email');
    const [reset] = await queuedAccountEmails(testApp, caller.userId, 'reset_password');
    await refusal(verifyEmail(deps, reset?.code ?? ''), 'bad_request');
    const answer = await resetPassword(deps, { code: reset?.code ?? '', new_password: 'a-new-password' });
    expect((await deps.callers.find(answer.access_token))?.userId).toBe(caller.userId);
  });
});

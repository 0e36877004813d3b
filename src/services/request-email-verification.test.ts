import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type MailingTestApp,
  queuedAccountEmails,
  refusal,
  signedInUser,
  startMailingTestApp,
} from '../../test/helpers/use-case-harness.js';
import { requestEmailVerification } from './request-email-verification.js';
import { verifyEmail } from './verify-email.js';

describe('requestEmailVerification', () => {
  let mailing: MailingTestApp;
  beforeAll(async () => {
    mailing = await startMailingTestApp();
  });
  afterAll(() => mailing.close());

  it('queues a new link whose code verifies; the previous one stops working', async () => {
    const { testApp } = mailing;
    const { deps } = testApp.runtime;
    const { caller } = await signedInUser(testApp);
    const before = (await queuedAccountEmails(testApp, caller.userId, 'verify_email')).length;
    expect(await requestEmailVerification(deps, caller)).toEqual({
      detail: `A verification link is on its way to ${caller.email}`,
    });
    await requestEmailVerification(deps, caller);
    const mails = await queuedAccountEmails(testApp, caller.userId, 'verify_email');
    expect(mails).toHaveLength(before + 2);
    const [older, newer] = mails.slice(-2);
    await refusal(verifyEmail(deps, older?.code ?? ''), 'bad_request');
    await verifyEmail(deps, newer?.code ?? '');
    // Verified: nothing more to send.
    await refusal(requestEmailVerification(deps, caller), 'conflict');
  });

  it('mails a user at most five links an hour', async () => {
    const { deps } = mailing.testApp.runtime;
    const { caller } = await signedInUser(mailing.testApp);
    for (let request = 0; request < 5; request += 1) await requestEmailVerification(deps, caller);
    const blocked = await refusal(requestEmailVerification(deps, caller), 'too_many_requests');
    expect(blocked.options.retryAfterSeconds).toBeGreaterThan(0);
  });

  it('needs a mail server', async () => {
    // The same service without SMTP_URL.
    const { deps } = mailing.testApp.runtime;
    const { caller } = await signedInUser(mailing.testApp);
    const queued = await queuedAccountEmails(mailing.testApp, caller.userId, 'verify_email');
    await refusal(requestEmailVerification({ ...deps, mailer: undefined }, caller), 'unavailable');
    expect(await queuedAccountEmails(mailing.testApp, caller.userId, 'verify_email')).toEqual(queued);
  });
});

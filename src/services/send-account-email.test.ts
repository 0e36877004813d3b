import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  lastQueuedMail,
  type MailingTestApp,
  rejectionOf,
  signedInUser,
  startMailingTestApp,
} from '../../test/helpers/use-case-harness.js';
import { JobError } from '../jobs/retry-policy.js';
import { queueAccountEmail } from './queue-account-email.js';
import { sendAccountEmail } from './send-account-email.js';
import { verifyEmail } from './verify-email.js';

describe('sendAccountEmail', () => {
  let mailing: MailingTestApp;
  beforeAll(async () => {
    mailing = await startMailingTestApp();
  });
  afterAll(() => mailing.close());

  const mailsTo = (address: string) => mailing.smtp.received.filter((mail) => mail.to.includes(address));

  it('mails the user a verification link whose code verifies the address', async () => {
    const { testApp } = mailing;
    const { deps } = testApp.runtime;
    const { caller } = await signedInUser(testApp);
    await queueAccountEmail(deps, caller.userId, 'verify_email');
    const { payload, code } = await lastQueuedMail(testApp, caller.userId, 'verify_email');
    await sendAccountEmail(deps, payload);
    const [mail, ...more] = mailsTo(caller.email);
    expect(more).toHaveLength(0);
    expect(mail).toMatchObject({ from: 'no-reply@knowledge.test', subject: 'Confirm your e-mail address' });
    expect(mail?.text).toContain(
      `https://knowledge.test/v1/auth/verify-email?code=${encodeURIComponent(code)}`,
    );
    await verifyEmail(deps, code);
    // Verified since: a second attempt of the same job sends nothing.
    await sendAccountEmail(deps, payload);
    expect(mailsTo(caller.email)).toHaveLength(1);
  });

  it('sends nothing for a code a newer one replaced, and mails the reset code itself', async () => {
    const { testApp } = mailing;
    const { deps } = testApp.runtime;
    const { caller } = await signedInUser(testApp);
    await queueAccountEmail(deps, caller.userId, 'reset_password');
    const older = await lastQueuedMail(testApp, caller.userId, 'reset_password');
    await queueAccountEmail(deps, caller.userId, 'reset_password');
    const newer = await lastQueuedMail(testApp, caller.userId, 'reset_password');
    await sendAccountEmail(deps, older.payload);
    expect(mailsTo(caller.email)).toHaveLength(0);
    await sendAccountEmail(deps, newer.payload);
    const [mail] = mailsTo(caller.email);
    expect(mail?.subject).toBe('Reset your password');
    expect(mail?.text.split('\n')).toContain(newer.code);
  });

  it('makes a refused message a retryable failure for a 4xx reply and a permanent one for 5xx', async () => {
    const { testApp, smtp } = mailing;
    const { deps } = testApp.runtime;
    const { caller } = await signedInUser(testApp);
    await queueAccountEmail(deps, caller.userId, 'verify_email');
    const { payload } = await lastQueuedMail(testApp, caller.userId, 'verify_email');
    smtp.refusals.push(451);
    const later = await rejectionOf(sendAccountEmail(deps, payload));
    expect(later).toBeInstanceOf(JobError);
    expect(later).toMatchObject({ retryable: true });
    smtp.refusals.push(550);
    expect(await rejectionOf(sendAccountEmail(deps, payload))).toMatchObject({ retryable: false });
    await sendAccountEmail(deps, payload);
    expect(mailsTo(caller.email)).toHaveLength(1);
  });
});

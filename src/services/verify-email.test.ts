import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registrationRecord, TEST_REGISTRATION_SECRET, uniqueSuffix } from '../../test/helpers/test-app.js';
import {
  lastQueuedMail,
  type MailingTestApp,
  refusal,
  startMailingTestApp,
} from '../../test/helpers/use-case-harness.js';
import { registerUser } from './register-user.js';
import { verifyEmail } from './verify-email.js';

const ADDRESS = '192.0.2.20';

describe('verifyEmail', () => {
  let mailing: MailingTestApp;
  beforeAll(async () => {
    mailing = await startMailingTestApp();
  });
  afterAll(() => mailing.close());

  it('proves the address of the code’s user once: the front end can no longer take the account over', async () => {
    const { deps } = mailing.testApp.runtime;
    const email = `vic-${uniqueSuffix()}@example.com`;
    const registered = await registerUser(
      deps,
      { email, password: 'vic-password' },
      { bearerToken: undefined, clientAddress: ADDRESS },
    );
    expect(registered.body.email_verification).toBe('mail_sent');
    const { code } = await lastQueuedMail(mailing.testApp, registered.body.user.id, 'verify_email');
    expect(await verifyEmail(deps, code)).toEqual({ detail: 'The e-mail address is verified', email });
    await refusal(verifyEmail(deps, code), 'bad_request');
    // A trusted registration of a proven address needs the user's own proof now.
    const trusted = { bearerToken: TEST_REGISTRATION_SECRET, clientAddress: ADDRESS };
    await refusal(registerUser(deps, registrationRecord(email, { provider: 'github' }), trusted), 'conflict');
  });

  it('refuses a made-up code', async () => {
    const error = await refusal(verifyEmail(mailing.testApp.runtime.deps, 'not-a-real-code'), 'bad_request');
    expect(error.message).toContain('not valid');
  });

  it('leaves an unverified account open to the front end’s takeover until the code is used', async () => {
    const { deps } = mailing.testApp.runtime;
    const email = `wyn-${uniqueSuffix()}@example.com`;
    const registered = await registerUser(
      deps,
      { email, password: 'wyn-password' },
      { bearerToken: undefined, clientAddress: ADDRESS },
    );
    const trusted = { bearerToken: TEST_REGISTRATION_SECRET, clientAddress: ADDRESS };
    const claimed = await registerUser(deps, registrationRecord(email), trusted);
    expect(claimed.body.user.id).toBe(registered.body.user.id);
    expect(claimed.body.email_verification).toBe('verified');
  });
});

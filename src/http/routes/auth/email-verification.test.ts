import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeSmtpServer, type ReceivedMail } from '../../../../test/fakes/fake-smtp-server.js';
import { dumpAllTables } from '../../../../test/helpers/database-dump.js';
import {
  bearer,
  registrationRecord,
  startTestApp,
  TEST_REGISTRATION_SECRET,
  type TestApp,
  uniqueSuffix,
} from '../../../../test/helpers/test-app.js';

const SECRET = TEST_REGISTRATION_SECRET;
const unique = uniqueSuffix;
const registration = registrationRecord;

/** The link or code a mail carries, as its reader would copy it. */
function linkIn(mail: ReceivedMail): URL {
  const match = /https?:\/\/\S+/.exec(mail.text);
  if (match === null) throw new Error(`no link in: ${mail.text}`);
  return new URL(match[0]);
}

function resetCodeIn(mail: ReceivedMail): string {
  const match = /^([A-Za-z0-9_-]{40,})$/m.exec(mail.text);
  if (match?.[1] === undefined) throw new Error(`no code in: ${mail.text}`);
  return match[1];
}

describe('e-mail verification and password reset, mailed over SMTP', () => {
  let smtp: FakeSmtpServer;
  let testApp: TestApp;
  const mailsTo = (address: string) => smtp.received.filter((mail) => mail.to.includes(address));
  async function nextMailTo(address: string, seen = 0): Promise<ReceivedMail> {
    await expect
      .poll(() => mailsTo(address).length, { message: `a mail to ${address}` })
      .toBeGreaterThan(seen);
    return mailsTo(address)[seen] as ReceivedMail;
  }

  beforeAll(async () => {
    smtp = await new FakeSmtpServer({ username: 'mailer', password: 'smtp-secret' }).start();
    testApp = await startTestApp({
      worker: true,
      env: {
        SMTP_URL: smtp.url({ username: 'mailer', password: 'smtp-secret' }),
        SMTP_FROM: 'Knowledge <no-reply@knowledge.test>',
        PUBLIC_URL: 'https://knowledge.test/',
      },
    });
  });
  afterAll(async () => {
    await testApp.close();
    await smtp.close();
  });

  const post = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
    testApp.app.inject({ method: 'POST', url, payload: payload as object, headers });

  it('mails a link that verifies the address after one click, not on being opened', async () => {
    const email = `pat-${unique()}@corp.com`;
    const registered = await post('/v2/users/register', { ...registration(email), password: 'pat-password' });
    expect(registered.statusCode).toBe(201);
    expect(registered.json().email_verification).toBe('mail_sent');
    const mail = await nextMailTo(email);
    expect(mail.from).toBe('no-reply@knowledge.test');
    expect(mail.subject).toBe('Confirm your e-mail address');
    const link = linkIn(mail);
    expect(link.origin + link.pathname).toBe('https://knowledge.test/v1/auth/verify-email');

    // Opening the link (a mail scanner does) shows a button and changes nothing.
    const page = await testApp.app.inject({ url: link.pathname + link.search });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('<button type="submit">Confirm my e-mail address</button>');
    const code = link.searchParams.get('code') ?? '';
    expect(page.body).toContain(`value="${code}"`);

    // The code is a password for a while: no table holds it and no log line shows it.
    expect(await dumpAllTables(testApp.runtime.database.db)).not.toContain(code);
    expect(testApp.logLines.join('\n')).not.toContain(code);
    expect(testApp.logLines.join('\n')).toContain('/v1/auth/verify-email?code=[redacted]');

    // One click (the form's POST) verifies; the code was still unused after the GET.
    const clicked = await testApp.app.inject({
      method: 'POST',
      url: '/v1/auth/verify-email',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `code=${encodeURIComponent(code)}`,
    });
    expect(clicked.statusCode).toBe(200);
    expect(clicked.headers['content-type']).toMatch(/^text\/html/);
    expect(clicked.body).toContain(`${email} is confirmed`);
    // Verified: the front end's secret alone no longer takes the account; the password still signs in.
    const takeover = await post(
      '/v2/users/register',
      registration(email, { provider: 'github' }),
      bearer(SECRET),
    );
    expect(takeover.statusCode).toBe(409);
    expect((await post('/v1/auth/token', { email, password: 'pat-password' })).statusCode).toBe(200);
    // The code works once.
    const reused = await post('/v1/auth/verify-email', { code });
    expect(reused.statusCode).toBe(400);
  });

  it('escapes whatever code a crafted link carries into the page', async () => {
    const page = await testApp.app.inject({
      url: `/v1/auth/verify-email?code=${encodeURIComponent('"><script>alert(1)</script>')}`,
    });
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain('<script>');
    expect(page.body).toContain('&quot;&gt;&lt;script&gt;');
  });

  it('resets a password with a mailed code: other sessions end, the old password stops working', async () => {
    const email = `reset-${unique()}@corp.com`;
    const registered = (
      await post('/v2/users/register', { ...registration(email), password: 'forgotten-pw' })
    ).json();
    await nextMailTo(email); // the verification mail
    const requested = await post('/v1/auth/password-reset', { email: email.toUpperCase() });
    expect(requested.statusCode).toBe(202);
    const unknown = await post('/v1/auth/password-reset', { email: `nobody-${unique()}@corp.com` });
    expect(unknown.statusCode).toBe(202);
    expect(unknown.json()).toEqual(requested.json());

    const mail = await nextMailTo(email, 1);
    expect(mail.subject).toBe('Reset your password');
    const code = resetCodeIn(mail);
    const tooShort = await post('/v1/auth/password-reset/confirm', { code, new_password: 'short' });
    expect(tooShort.statusCode).toBe(422);
    const confirmed = await post('/v1/auth/password-reset/confirm', { code, new_password: 'remembered-pw' });
    expect(confirmed.statusCode).toBe(200);
    const me = (token: string) => testApp.app.inject({ url: '/v1/users/me', headers: bearer(token) });
    expect((await me(registered.access_token)).statusCode).toBe(401);
    expect((await me(confirmed.json().access_token)).statusCode).toBe(200);
    expect((await post('/v1/auth/token', { email, password: 'forgotten-pw' })).statusCode).toBe(401);
    expect((await post('/v1/auth/token', { email, password: 'remembered-pw' })).statusCode).toBe(200);
    const again = await post('/v1/auth/password-reset/confirm', { code, new_password: 'third-password' });
    expect(again.statusCode).toBe(400);
    // The mailbox was proven: the secret alone no longer links a new provider account.
    const takeover = await post(
      '/v2/users/register',
      registration(email, { provider: 'github' }),
      bearer(SECRET),
    );
    expect(takeover.statusCode).toBe(409);
  });

  it('sends a new verification link on request, and retries a mail server that is briefly away', async () => {
    const email = `later-${unique()}@corp.com`;
    smtp.refusals.push(451);
    const registered = (
      await post('/v2/users/register', { ...registration(email), password: 'later-password' })
    ).json();
    // 451 is "try again later": the job retries (from 30 s); a resend meanwhile goes out at once.
    // Resent once the first mail met the refusal: resent earlier, the first job would find its code
    // replaced and send nothing, and the resend would meet the refusal instead.
    await expect.poll(() => smtp.refusals.length).toBe(0);
    const resend = await post('/v1/users/me/verify-email', undefined, bearer(registered.access_token));
    expect(resend.statusCode).toBe(202);
    const mail = await nextMailTo(email);
    const verified = await post('/v1/auth/verify-email', { code: linkIn(mail).searchParams.get('code') });
    expect(verified.statusCode).toBe(200);
    expect(verified.json()).toEqual({ detail: 'The e-mail address is verified', email });
    const already = await post('/v1/users/me/verify-email', undefined, bearer(registered.access_token));
    expect(already.statusCode).toBe(409);
  });
});

import { MailError, type MailMessage } from '../adapters/mail/mailer.js';
import type { EmailCodePurpose } from '../db/repositories/email-codes.js';
import type { SendAccountEmailPayload } from '../jobs/definitions/send-account-email.js';
import { JobError } from '../jobs/retry-policy.js';
import { hashAccessToken } from '../security/access-tokens.js';
import type { ServiceDependencies } from './dependencies.js';
import { EMAIL_CODE_TTL_SECONDS } from './queue-account-email.js';

/** The send-account-email job: writes the message for the user's current address and hands it to SMTP. */
export async function sendAccountEmail(
  deps: ServiceDependencies,
  payload: SendAccountEmailPayload,
): Promise<void> {
  if (deps.mailer === undefined) {
    throw JobError.permanent('unsupported', 'No mail server is configured (SMTP_URL)');
  }
  const user = await deps.data.users.findUserById(payload.userId);
  // The user was removed meanwhile, or proved the address some other way: nothing to send.
  if (user === undefined || !user.isActive) return;
  if (payload.purpose === 'verify_email' && user.emailVerifiedAt !== null) return;
  const code = deps.secrets.open(payload.sealedCode);
  // A newer code replaced this one (a resend), or it was used or expired: its mail would mislead.
  if ((await deps.data.emailCodes.findEmailCodeUser(payload.purpose, hashAccessToken(code))) !== user.id)
    return;
  try {
    await deps.mailer.send(accountMessage(deps.config.publicUrl, user.email, payload.purpose, code));
  } catch (error) {
    if (error instanceof MailError && error.retryable) {
      throw JobError.retryable('upstream_unavailable', error.message, { cause: error });
    }
    throw JobError.permanent('bad_request', error instanceof Error ? error.message : String(error), {
      cause: error,
    });
  }
}

/** The message itself: plain text, the link (or code) and what to do if it was not you. */
export function accountMessage(
  publicUrl: string,
  to: string,
  purpose: EmailCodePurpose,
  code: string,
): MailMessage {
  const hours = EMAIL_CODE_TTL_SECONDS[purpose] / 3600;
  if (purpose === 'verify_email') {
    return {
      to,
      subject: 'Confirm your e-mail address',
      text: [
        'Someone registered an account with this e-mail address. If it was you, confirm the address by opening this link:',
        '',
        `${publicUrl}/v1/auth/verify-email?code=${encodeURIComponent(code)}`,
        '',
        `The link works once, for ${hours} hours.`,
        "If you did not register, ignore this message: an unconfirmed account is taken over by the address's owner when they sign in.",
      ].join('\n'),
    };
  }
  return {
    to,
    subject: 'Reset your password',
    text: [
      'Someone asked to reset the password of the account with this e-mail address. If it was you, choose a new password with this code:',
      '',
      code,
      '',
      `POST ${publicUrl}/v1/auth/password-reset/confirm with {"code": "<the code>", "new_password": "<at least 8 characters>"}`,
      '',
      `The code works once, for ${hours === 1 ? 'an hour' : `${hours} hours`}; every other session of the account is signed out when it is used.`,
      'If you did not ask, ignore this message: your password stays as it is.',
    ].join('\n'),
  };
}

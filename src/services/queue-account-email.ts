import type { EmailCodePurpose } from '../db/repositories/email-codes.js';
import { SEND_ACCOUNT_EMAIL_JOB } from '../jobs/definitions/send-account-email.js';
import { generateEmailCode, hashAccessToken } from '../security/access-tokens.js';
import type { ServiceDependencies } from './dependencies.js';

/** How long a mailed code works: a day to verify an address, an hour to reset a password. */
export const EMAIL_CODE_TTL_SECONDS: Readonly<Record<EmailCodePurpose, number>> = {
  verify_email: 24 * 3600,
  reset_password: 3600,
};

/**
 * Issues a new one-time code (earlier ones of the same purpose stop working) and queues the mail
 * that carries it. The code is stored hashed and travels to the job sealed.
 */
export async function queueAccountEmail(
  deps: ServiceDependencies,
  userId: number,
  purpose: EmailCodePurpose,
): Promise<void> {
  const code = generateEmailCode();
  const expiresAt = new Date(deps.now().getTime() + EMAIL_CODE_TTL_SECONDS[purpose] * 1000);
  await deps.data.transaction(async (tx) => {
    await tx.emailCodes.deleteEmailCodes(userId, purpose);
    await tx.emailCodes.insertEmailCode({ userId, purpose, codeHash: hashAccessToken(code), expiresAt });
  });
  await deps.jobs.send(SEND_ACCOUNT_EMAIL_JOB, { userId, purpose, sealedCode: deps.secrets.seal(code) });
}

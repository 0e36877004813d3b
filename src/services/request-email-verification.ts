import type { Caller } from '../caller.js';
import { ServiceError } from '../errors.js';
import type { ServiceDependencies } from './dependencies.js';
import { countHourlyAction } from './password-attempts.js';
import { queueAccountEmail } from './queue-account-email.js';

const VERIFICATION_MAILS_PER_HOUR = 5;

/** Mails the signed-in user a new verification link (the previous one stops working). */
export async function requestEmailVerification(
  deps: ServiceDependencies,
  caller: Caller,
): Promise<{ detail: string }> {
  const user = await deps.data.users.findUserById(caller.userId);
  if (user === undefined) throw new ServiceError('unauthenticated', 'Not authenticated');
  if (user.emailVerifiedAt !== null)
    throw new ServiceError('conflict', 'The e-mail address is already verified');
  if (deps.mailer === undefined) {
    throw new ServiceError(
      'unavailable',
      'Verifying an e-mail address needs a mail server, and this service has none (SMTP_URL)',
    );
  }
  const blocked = await countHourlyAction(deps, `verify:user:${user.id}`, VERIFICATION_MAILS_PER_HOUR);
  if (blocked > 0) {
    throw new ServiceError('too_many_requests', 'Too many verification mails this hour; try again later', {
      retryAfterSeconds: blocked,
    });
  }
  await queueAccountEmail(deps, user.id, 'verify_email');
  return { detail: `A verification link is on its way to ${user.email}` };
}

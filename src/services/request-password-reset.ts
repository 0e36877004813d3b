import { ServiceError } from '../errors.js';
import { normalizeEmail } from '../security/email-address.js';
import type { ServiceDependencies } from './dependencies.js';
import { countHourlyAction } from './password-attempts.js';
import { queueAccountEmail } from './queue-account-email.js';
import { refuseWhilePasswordsOff } from './sign-in.js';

/** Reset requests one address may make per hour, and reset mails one account may receive. */
const RESETS_PER_HOUR_PER_ADDRESS = 10;
const RESET_MAILS_PER_HOUR_PER_ACCOUNT = 3;

export const RESET_REQUESTED =
  'If an account has this e-mail address, a code to reset its password is on its way there.';

/**
 * Mails a one-time reset code to an account's address. The answer is the same whether or not
 * the account exists, so it cannot be used to find out who has one.
 */
export async function requestPasswordReset(
  deps: ServiceDependencies,
  input: { readonly email: string },
  clientAddress: string,
): Promise<{ detail: string }> {
  refuseWhilePasswordsOff(deps.config);
  if (deps.mailer === undefined) {
    throw new ServiceError(
      'unavailable',
      'Password reset needs a mail server, and this service has none (SMTP_URL); an administrator can help',
    );
  }
  const normalized = normalizeEmail(input.email);
  if (!normalized.ok) {
    throw ServiceError.validation([
      { type: 'value_error', loc: ['body', 'email'], msg: normalized.problem, input: input.email },
    ]);
  }
  const blocked = await countHourlyAction(
    deps,
    `reset:address:${clientAddress}`,
    RESETS_PER_HOUR_PER_ADDRESS,
  );
  if (blocked > 0) {
    throw new ServiceError(
      'too_many_requests',
      'Too many reset requests from this address; try again later',
      {
        retryAfterSeconds: blocked,
      },
    );
  }
  const user = await deps.data.users.findUserByEmail(normalized.email);
  if (
    user?.isActive === true &&
    (await countHourlyAction(deps, `reset:user:${user.id}`, RESET_MAILS_PER_HOUR_PER_ACCOUNT)) === 0
  ) {
    await queueAccountEmail(deps, user.id, 'reset_password');
  }
  return { detail: RESET_REQUESTED };
}

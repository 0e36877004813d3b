import { ServiceError } from '../errors.js';
import { hashAccessToken } from '../security/access-tokens.js';
import type { ServiceDependencies } from './dependencies.js';

/** Marks the e-mail of a mailed verification code's user as proven; the code is used up. */
export async function verifyEmail(
  deps: ServiceDependencies,
  code: string,
): Promise<{ detail: string; email: string }> {
  const email = await deps.data.transaction(async (tx) => {
    const userId = await tx.emailCodes.consumeEmailCode('verify_email', hashAccessToken(code));
    const user = userId === undefined ? undefined : await tx.users.findUserById(userId);
    if (user === undefined) {
      throw new ServiceError(
        'bad_request',
        'This verification link is not valid: it was used, replaced by a newer one, or it expired',
      );
    }
    await tx.users.markEmailVerified(user.id);
    return user.email;
  });
  return { detail: 'The e-mail address is verified', email };
}

import { ServiceError } from '../errors.js';
import { hashAccessToken } from '../security/access-tokens.js';
import type { ServiceDependencies } from './dependencies.js';
import { issueAccessToken } from './issue-access-token.js';
import { assertNewPasswordLength } from './new-password.js';
import { hashNewPassword } from './password-attempts.js';
import { refuseWhilePasswordsOff } from './sign-in.js';

const INVALID_CODE = 'This reset code is not valid: it was used, replaced by a newer one, or it expired';

/**
 * Sets a new password with a mailed reset code. The code proves the mailbox, so the e-mail
 * counts as verified; every session of the user ends (an unverified account is handed over as
 * a trusted sign-in would: see claimUnverifiedUser) and a fresh token is answered.
 */
export async function resetPassword(
  deps: ServiceDependencies,
  input: { readonly code: string; readonly new_password: string },
): Promise<{ access_token: string; token_type: 'bearer' }> {
  refuseWhilePasswordsOff(deps.config);
  assertNewPasswordLength(input.new_password, 'new_password');
  const codeHash = hashAccessToken(input.code);
  // Checked before hashing, so made-up codes cost no scrypt; used up in the transaction below.
  if ((await deps.data.emailCodes.findEmailCodeUser('reset_password', codeHash)) === undefined) {
    throw new ServiceError('bad_request', INVALID_CODE);
  }
  const passwordHash = await hashNewPassword(deps, input.new_password);
  const { userId, accessToken } = await deps.data.transaction(async (tx) => {
    const owner = await tx.emailCodes.consumeEmailCode('reset_password', codeHash);
    const user = owner === undefined ? undefined : await tx.users.findUserById(owner);
    if (user === undefined || !user.isActive) throw new ServiceError('bad_request', INVALID_CODE);
    // Whoever reads the mailbox owns the address: an unverified account is theirs from now on
    // (its tokens and codes go with the rest); a verified one ends its sessions and reset codes.
    const claimed =
      user.emailVerifiedAt === null &&
      (await tx.users.claimUnverifiedUser(user.id, user.email)) !== undefined;
    if (!claimed) {
      await tx.accessTokens.deleteUserAccessTokens(user.id);
      await tx.emailCodes.deleteEmailCodes(user.id, 'reset_password');
    }
    await tx.users.updatePasswordHash(user.id, passwordHash);
    const token = await issueAccessToken(tx, user.id, deps.config.accessTokenTtlSeconds, deps.now());
    return { userId: user.id, accessToken: token };
  });
  deps.callers.forgetUser(userId);
  return { access_token: accessToken, token_type: 'bearer' };
}

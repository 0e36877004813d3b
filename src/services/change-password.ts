import type { Caller } from '../caller.js';
import { ServiceError } from '../errors.js';
import type { ServiceDependencies } from './dependencies.js';
import { assertNewPasswordLength } from './new-password.js';
import { accountKey, checkPassword, hashNewPassword } from './password-attempts.js';
import { refuseWhilePasswordsOff } from './sign-in.js';

export interface ChangePasswordInput {
  /** Required when the account has a password: a stolen token alone must not lock its owner out. */
  readonly current_password?: string | null;
  readonly new_password: string;
}

/**
 * Sets a new password for the signed-in user. The current one is checked (throttled like a
 * sign-in); every other session of the user ends, this one stays signed in.
 */
export async function changePassword(
  deps: ServiceDependencies,
  caller: Caller,
  input: ChangePasswordInput,
  clientAddress: string,
): Promise<void> {
  refuseWhilePasswordsOff(deps.config);
  assertNewPasswordLength(input.new_password, 'new_password');
  const user = await deps.data.users.findUserById(caller.userId);
  if (user === undefined) throw new ServiceError('unauthenticated', 'Not authenticated');
  if (user.passwordHash !== null) {
    const current = input.current_password ?? '';
    if (current === '') {
      throw ServiceError.validation([
        {
          type: 'missing',
          loc: ['body', 'current_password'],
          msg: 'Field required: this account has a password',
        },
      ]);
    }
    const attempt = { account: accountKey(user, user.email), clientAddress };
    if (!(await checkPassword(deps, attempt, current, user.passwordHash))) {
      throw new ServiceError('forbidden', 'The current password is not correct');
    }
  }
  const passwordHash = await hashNewPassword(deps, input.new_password);
  await deps.data.transaction(async (tx) => {
    await tx.users.updatePasswordHash(user.id, passwordHash);
    await tx.accessTokens.deleteUserAccessTokens(user.id, caller.tokenHash);
  });
  deps.callers.forgetUser(user.id, caller.tokenHash);
}

import { teamRoleOf } from '../caller.js';
import { ServiceError } from '../errors.js';
import { hashAccessToken } from '../security/access-tokens.js';
import type { ServiceDependencies } from './dependencies.js';
import { getUserContext } from './get-user-context.js';
import { type SignInInput, signInUser } from './sign-in.js';

/**
 * Signs a browser in: the same checks and throttling as a token sign-in; the token goes into a
 * cookie (the caller sets it), so the answer's body is the user's `user_context` instead.
 */
export async function signInSession(deps: ServiceDependencies, input: SignInInput) {
  const { token, user } = await signInUser(deps, input);
  // A user without a team has no user_context, as GET /v1/users/me has none for its token.
  if (user.teamId === null) throw new ServiceError('not_found', 'User not found');
  const caller = {
    userId: user.id,
    teamId: user.teamId,
    email: user.email,
    emailVerified: user.emailVerifiedAt !== null,
    role: teamRoleOf(user.role),
    tokenHash: hashAccessToken(token),
  };
  return {
    token,
    maxAgeSeconds: deps.config.accessTokenTtlSeconds,
    user: await getUserContext(deps, caller),
  };
}

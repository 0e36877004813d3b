import { findUserByEmail, findUserByUsername } from '../db/repositories/users.js';
import { ServiceError } from '../errors.js';
import { verifyPassword } from '../security/passwords.js';
import type { ServiceDependencies } from './dependencies.js';
import { issueAccessToken } from './issue-access-token.js';

export interface SignInInput {
  email?: string | null;
  username?: string | null;
  password: string;
}

// Spent on unknown users too, so a wrong e-mail takes as long as a wrong password.
const DECOY_HASH_LOG_N_FALLBACK = 'scrypt$10$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAA';

/** Exchanges an e-mail or username and password for a bearer token. */
export async function signIn(
  deps: ServiceDependencies,
  input: SignInInput,
): Promise<{ access_token: string; token_type: 'bearer' }> {
  const email = input.email?.trim().toLowerCase();
  const username = input.username?.trim();
  if (!email && !username) {
    throw ServiceError.validation([
      { type: 'missing', loc: ['body', 'email'], msg: 'Field required: give email or username' },
    ]);
  }
  const user = email
    ? await findUserByEmail(deps.db, email)
    : await findUserByUsername(deps.db, username ?? '');
  const valid = await verifyPassword(
    input.password,
    user?.passwordHash ?? DECOY_HASH_LOG_N_FALLBACK.replace('$10$', `$${deps.config.passwordScryptLogN}$`),
  );
  if (user === undefined || user.passwordHash === null || !valid || !user.isActive) {
    throw new ServiceError('unauthenticated', 'Incorrect e-mail, username or password');
  }
  const accessToken = await issueAccessToken(deps.db, user.id, deps.config.accessTokenTtlSeconds, deps.now());
  return { access_token: accessToken, token_type: 'bearer' };
}

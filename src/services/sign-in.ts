import { findUserByEmail, findUserByUsername } from '../db/repositories/users.js';
import { ServiceError } from '../errors.js';
import { normalizeEmail } from '../security/email-address.js';
import type { ServiceDependencies } from './dependencies.js';
import { issueAccessToken } from './issue-access-token.js';
import { accountKey, checkPassword } from './password-attempts.js';

export interface SignInInput {
  email?: string | null;
  username?: string | null;
  password: string;
  /** Where the attempt comes from: failures are throttled per address as well as per account. */
  clientAddress: string;
}

const INCORRECT = 'Incorrect e-mail, username or password';

/** Exchanges an e-mail or username and password for a bearer token; throttled (see password-attempts.ts). */
export async function signIn(
  deps: ServiceDependencies,
  input: SignInInput,
): Promise<{ access_token: string; token_type: 'bearer' }> {
  const rawEmail = input.email?.trim();
  const username = input.username?.trim();
  if (!rawEmail && !username) {
    throw ServiceError.validation([
      { type: 'missing', loc: ['body', 'email'], msg: 'Field required: give email or username' },
    ]);
  }
  let name: string;
  if (rawEmail) {
    // An address no account could have is simply not found: the answer must not tell it apart.
    const normalized = normalizeEmail(rawEmail);
    name = normalized.ok ? normalized.email : rawEmail.toLowerCase();
  } else {
    name = username ?? '';
  }
  const user = rawEmail ? await findUserByEmail(deps.db, name) : await findUserByUsername(deps.db, name);
  const attempt = { account: accountKey(user, name), clientAddress: input.clientAddress };
  const valid = await checkPassword(deps, attempt, input.password, user?.passwordHash);
  if (user === undefined || !valid || !user.isActive) throw new ServiceError('unauthenticated', INCORRECT);
  const accessToken = await issueAccessToken(deps.db, user.id, deps.config.accessTokenTtlSeconds, deps.now());
  return { access_token: accessToken, token_type: 'bearer' };
}

import type { Config } from '../config.js';
import type { UserRow } from '../db/repositories/users.js';
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

/**
 * 403 while PASSWORD_SIGN_IN=false: people sign in with the company's provider, so no password
 * signs in, signs up or is reset here (the trusted front end's registration is not refused).
 */
export function refuseWhilePasswordsOff(config: Pick<Config, 'signIn'>): void {
  if (config.signIn.password) return;
  throw new ServiceError(
    'forbidden',
    `Password sign-in is turned off: sign in with ${config.signIn.providerName}`,
  );
}

/**
 * Exchanges an e-mail or username and password for a bearer token; throttled (see password-attempts.ts).
 * A `username` that is an e-mail address signs in by e-mail (as OAuth2 password-flow clients send
 * it), or, when no account has that address, as a username.
 */
export async function signIn(
  deps: ServiceDependencies,
  input: SignInInput,
): Promise<{ access_token: string; token_type: 'bearer' }> {
  const { token } = await signInUser(deps, input);
  return { access_token: token, token_type: 'bearer' };
}

/** The sign-in itself, for every way of answering it (a bearer token, a browser session). */
export async function signInUser(
  deps: ServiceDependencies,
  input: SignInInput,
): Promise<{ token: string; user: UserRow }> {
  refuseWhilePasswordsOff(deps.config);
  const rawEmail = input.email?.trim();
  const username = input.username?.trim();
  if (!rawEmail && !username) {
    throw ServiceError.validation([
      { type: 'missing', loc: ['body', 'email'], msg: 'Field required: give email or username' },
    ]);
  }
  const { user, name } = rawEmail
    ? await findByEmail(deps, rawEmail)
    : await findByUsername(deps, username ?? '');
  // Failures count against the account whichever name found it (its id), else the name asked for.
  const attempt = { account: accountKey(user, name), clientAddress: input.clientAddress };
  const valid = await checkPassword(deps, attempt, input.password, user?.passwordHash);
  if (user === undefined || !valid || !user.isActive) throw new ServiceError('unauthenticated', INCORRECT);
  const token = await issueAccessToken(deps.data, user.id, deps.config.accessTokenTtlSeconds, deps.now());
  return { token, user };
}

type Lookup = { user: UserRow | undefined; name: string };

async function findByEmail(deps: ServiceDependencies, rawEmail: string): Promise<Lookup> {
  // An address no account could have is simply not found: the answer must not tell it apart.
  const normalized = normalizeEmail(rawEmail);
  const name = normalized.ok ? normalized.email : rawEmail.toLowerCase();
  return { user: await deps.data.users.findUserByEmail(name), name };
}

async function findByUsername(deps: ServiceDependencies, username: string): Promise<Lookup> {
  const asEmail = normalizeEmail(username);
  if (asEmail.ok) {
    const byEmail = await deps.data.users.findUserByEmail(asEmail.email);
    if (byEmail !== undefined) return { user: byEmail, name: asEmail.email };
    const byUsername = await deps.data.users.findUserByUsername(username);
    // Unknown either way: counted under the address, as the same attempt by `email` would be.
    return { user: byUsername, name: byUsername === undefined ? asEmail.email : username };
  }
  return { user: await deps.data.users.findUserByUsername(username), name: username };
}

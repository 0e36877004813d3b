import type { ThrottlePolicy } from '../db/repositories/auth-throttles.js';
import { ServiceError } from '../errors.js';
import { PasswordHasherBusy } from '../security/passwords.js';
import type { ServiceDependencies } from './dependencies.js';

/** Who a password attempt is for and where it comes from: each is throttled on its own. */
export interface PasswordAttempt {
  /** The account's own id when it exists, else the name it was asked for (unknown accounts count too). */
  readonly account: string;
  /** The client's address as the HTTP layer sees it (`TRUST_PROXY` decides whose). */
  readonly clientAddress: string;
}

// Failures are counted for an hour from the first; past the allowance each one doubles the block.
const FAILURE_WINDOW_SECONDS = 3600;

/** The account key for an existing user, or for a name no user has (so guessing them costs the same). */
export function accountKey(user: { id: number } | undefined, name: string): string {
  return user === undefined ? `name:${name}` : `user:${user.id}`;
}

/**
 * Checks a password for an account with every protection in front of scrypt: refused with 429 and
 * `Retry-After` while the account or the address is blocked (no hashing spent), hashed in turn
 * (503 when the line is full), failures counted for both, the account's count cleared on success.
 * A null `stored` (no such user, or no password) spends the same time and fails.
 */
export async function checkPassword(
  deps: ServiceDependencies,
  attempt: PasswordAttempt,
  password: string,
  stored: string | null | undefined,
): Promise<boolean> {
  const keys = throttleKeys(attempt);
  const blocked = await deps.data.authThrottles.secondsBlocked([keys.account, keys.address], deps.now());
  if (blocked > 0) throw tooManyAttempts(blocked);
  const valid = await hashInTurn(() => deps.passwords.verify(password, stored));
  if (valid) {
    await deps.data.authThrottles.clearThrottle(keys.account);
    return true;
  }
  const now = deps.now();
  const { failuresPerAccount, failuresPerAddress, maxBlockSeconds } = deps.config.authLimits;
  await deps.data.authThrottles.countThrottledEvent(
    keys.account,
    failurePolicy(failuresPerAccount, maxBlockSeconds),
    now,
  );
  await deps.data.authThrottles.countThrottledEvent(
    keys.address,
    failurePolicy(failuresPerAddress, maxBlockSeconds),
    now,
  );
  return false;
}

/** Hashes a new password in turn with every other password check (503 when the line is full). */
export function hashNewPassword(deps: ServiceDependencies, password: string): Promise<string> {
  return hashInTurn(() => deps.passwords.hash(password));
}

/**
 * Counts a registration from an address (without the front end's secret); past
 * `REGISTRATIONS_PER_HOUR_PER_ADDRESS` in the hour, 429 until the hour is over.
 */
export async function countRegistration(deps: ServiceDependencies, clientAddress: string): Promise<void> {
  const perHour = deps.config.authLimits.registrationsPerHourPerAddress;
  if (perHour === 0) return;
  const blocked = await countHourlyAction(deps, `register:${clientAddress}`, perHour);
  if (blocked === 0) return;
  throw new ServiceError(
    'too_many_requests',
    `Too many registrations from this address; try again in ${Math.ceil(blocked)} s`,
    { retryAfterSeconds: blocked },
  );
}

/**
 * Counts an action that mails someone or is otherwise costly (registrations, reset requests,
 * verification mails) against one key. Answers 0 while the key is within `perHour`, else the
 * seconds until its hour is over, so the caller can refuse (with that Retry-After) or skip.
 */
export async function countHourlyAction(
  deps: ServiceDependencies,
  key: string,
  perHour: number,
): Promise<number> {
  const now = deps.now();
  const blocked = await deps.data.authThrottles.secondsBlocked([key], now);
  if (blocked > 0) return blocked;
  return deps.data.authThrottles.countThrottledEvent(
    key,
    { allowance: perHour, windowSeconds: 3600, block: { kind: 'window' } },
    now,
  );
}

function throttleKeys(attempt: PasswordAttempt): { account: string; address: string } {
  return {
    account: `password:account:${attempt.account}`,
    address: `password:address:${attempt.clientAddress}`,
  };
}

function failurePolicy(allowance: number, maxBlockSeconds: number): ThrottlePolicy {
  return { allowance, windowSeconds: FAILURE_WINDOW_SECONDS, block: { kind: 'backoff', maxBlockSeconds } };
}

function tooManyAttempts(seconds: number): ServiceError {
  return new ServiceError(
    'too_many_requests',
    `Too many failed password attempts; try again in ${Math.ceil(seconds)} s`,
    { retryAfterSeconds: seconds },
  );
}

async function hashInTurn<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof PasswordHasherBusy) {
      throw new ServiceError('unavailable', 'Too many password checks at once; try again in a moment', {
        retryAfterSeconds: 1,
      });
    }
    throw error;
  }
}

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const TOKEN_PREFIX = 'kat_';

/** A new random bearer token; only its hash is ever stored. */
export function generateAccessToken(): string {
  return `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
}

export function hashAccessToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Constant-time comparison of two secrets of any length. */
export function secretsEqual(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** A one-time code for a mailed link (verification, password reset); stored as its SHA-256 like tokens. */
export function generateEmailCode(): string {
  return randomBytes(32).toString('base64url');
}

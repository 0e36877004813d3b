import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

const KEY_LENGTH = 64;
const BLOCK_SIZE = 8;
const PARALLELISM = 1;

function deriveKey(password: string, salt: Buffer, logN: number): Promise<Buffer> {
  const N = 2 ** logN;
  // scrypt needs 128 * N * r bytes; leave headroom above that.
  const maxmem = 256 * N * BLOCK_SIZE;
  return new Promise((resolve, reject) => {
    scrypt(password, salt, KEY_LENGTH, { N, r: BLOCK_SIZE, p: PARALLELISM, maxmem }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/** Hashes a password with scrypt (OWASP: N=2^17, r=8, p=1) into a self-describing string. */
export async function hashPassword(password: string, logN: number): Promise<string> {
  const salt = randomBytes(16);
  const key = await deriveKey(password, salt, logN);
  return `scrypt$${logN}$${BLOCK_SIZE}$${PARALLELISM}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/** Checks a password against a stored hash in constant time; the cost comes from the hash itself. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, logN, , , salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || logN === undefined || salt === undefined || key === undefined) return false;
  const expected = Buffer.from(key, 'base64url');
  const actual = await deriveKey(password, Buffer.from(salt, 'base64url'), Number(logN));
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

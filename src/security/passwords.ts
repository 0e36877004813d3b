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

/** A password shorter than this is refused at registration, change and reset (NIST SP 800-63B's floor). */
export const MIN_PASSWORD_LENGTH = 8;

export interface PasswordHasherOptions {
  /** log2 of scrypt's N for new hashes. */
  readonly logN: number;
  /** Hashes computed at once: each takes 128 × N × r bytes (128 MiB at N = 2^17). */
  readonly concurrency: number;
  /** Requests waiting for a turn; beyond this, `PasswordHasherBusy` at once. */
  readonly maxQueued: number;
}

/** Every hash slot is taken and the line is full: the caller should answer 503 and come back. */
export class PasswordHasherBusy extends Error {
  constructor() {
    super('Too many password checks at once');
    this.name = 'PasswordHasherBusy';
  }
}

// Spent on unknown users too, so a wrong e-mail takes as long as a wrong password.
const DECOY_SALT = 'AAAAAAAAAAAAAAAAAAAAAA';

/**
 * scrypt with a bounded number of hashes in flight and a bounded line: memory stays at
 * `concurrency` × 128 MiB however many sign-in attempts arrive at once.
 */
export class PasswordHasher {
  readonly #options: PasswordHasherOptions;
  readonly #waiting: (() => void)[] = [];
  #running = 0;

  constructor(options: PasswordHasherOptions) {
    this.#options = options;
  }

  hash(password: string): Promise<string> {
    return this.#inTurn(() => hashPassword(password, this.#options.logN));
  }

  /** Checks a password against a stored hash; without one, spends the same time and answers false. */
  verify(password: string, stored: string | null | undefined): Promise<boolean> {
    return this.#inTurn(async () => {
      if (stored !== null && stored !== undefined) return verifyPassword(password, stored);
      await verifyPassword(password, `scrypt$${this.#options.logN}$8$1$${DECOY_SALT}$AAAA`);
      return false;
    });
  }

  async #inTurn<T>(work: () => Promise<T>): Promise<T> {
    if (this.#running < this.#options.concurrency) {
      this.#running += 1;
    } else {
      if (this.#waiting.length >= this.#options.maxQueued) throw new PasswordHasherBusy();
      // The slot is handed over by the finishing request, so `running` does not change here.
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
    try {
      return await work();
    } finally {
      const next = this.#waiting.shift();
      if (next === undefined) this.#running -= 1;
      else next();
    }
  }
}

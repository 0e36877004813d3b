import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  registerUser,
  startTestApp,
  TEST_REGISTRATION_SECRET,
  type TestApp,
  uniqueSuffix,
} from '../../../../test/helpers/test-app.js';

const SECRET = TEST_REGISTRATION_SECRET;
const unique = uniqueSuffix;

/** A stopped clock the test moves by hand: blocks end when the test says, not when the machine is slow. */
class TestClock {
  #nowMs = Date.now();
  now = () => new Date(this.#nowMs);
  advance(seconds: number): void {
    this.#nowMs += seconds * 1000;
  }
}

describe('password guessing is throttled per account and per address, with backoff', () => {
  const clock = new TestClock();
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp({
      // The defaults, as an installation has them.
      env: { AUTH_FAILURES_PER_ACCOUNT: '5', AUTH_FAILURES_PER_ADDRESS: '20', AUTH_MAX_BLOCK_SECONDS: '900' },
      overrides: { now: clock.now },
    });
  });
  afterAll(() => testApp.close());

  const signIn = (email: string, password: string, remoteAddress = '203.0.113.7') =>
    testApp.app.inject({
      method: 'POST',
      url: '/v1/auth/token',
      payload: { email, password },
      remoteAddress,
    });

  it('refuses a guessed account with 429 and Retry-After after 5 failures, doubling each time', async () => {
    const email = `guessed-${unique()}@corp.com`;
    await registerUser(testApp.app, { email, password: 'the-right-password' });
    // 40 guesses in a row, as in the review: only the first six are even checked.
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 40; attempt += 1) {
      statuses.push((await signIn(email, `guess-${attempt}`, `198.51.100.${attempt}`)).statusCode);
    }
    expect(statuses.slice(0, 6)).toEqual([401, 401, 401, 401, 401, 401]);
    expect(statuses.slice(6).every((status) => status === 429)).toBe(true);

    const blocked = await signIn(email, 'the-right-password');
    expect(blocked.statusCode).toBe(429);
    expect(blocked.headers['retry-after']).toBe('1');
    expect(blocked.json().detail).toMatch(/Too many failed password attempts/);

    // Each further failure blocks twice as long: 2 s, then 4 s.
    clock.advance(1.1);
    expect((await signIn(email, 'still-guessing')).statusCode).toBe(401);
    expect((await signIn(email, 'the-right-password')).headers['retry-after']).toBe('2');
    clock.advance(2.1);
    expect((await signIn(email, 'still-guessing')).statusCode).toBe(401);
    expect((await signIn(email, 'the-right-password')).headers['retry-after']).toBe('4');
    clock.advance(4.1);
    // The owner gets in once the block is over, and that clears the account's count.
    expect((await signIn(email, 'the-right-password')).statusCode).toBe(200);
    expect((await signIn(email, 'one-typo')).statusCode).toBe(401);
    expect((await signIn(email, 'the-right-password')).statusCode).toBe(200);
  });

  it('throttles an address that tries many accounts, not the other addresses', async () => {
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 25; attempt += 1) {
      statuses.push(
        (await signIn(`spray-${attempt}-${unique()}@corp.com`, 'Winter2026!', '192.0.2.50')).statusCode,
      );
    }
    expect(statuses.slice(0, 21).every((status) => status === 401)).toBe(true);
    expect(statuses.slice(21).every((status) => status === 429)).toBe(true);
    const email = `bystander-${unique()}@corp.com`;
    await registerUser(testApp.app, { email, password: 'bystander-password' });
    expect((await signIn(email, 'bystander-password', '192.0.2.51')).statusCode).toBe(200);
    expect((await signIn(email, 'bystander-password', '192.0.2.50')).statusCode).toBe(429);
    // Blocks end: at most AUTH_MAX_BLOCK_SECONDS.
    clock.advance(901);
    expect((await signIn(email, 'bystander-password', '192.0.2.50')).statusCode).toBe(200);
  });

  it('counts password proofs at registration and current passwords on a change like sign-ins', async () => {
    const email = `proof-${unique()}@corp.com`;
    const record = {
      type: 'oidc',
      provider: 'google',
      provider_account_id: `g-${unique()}`,
      email,
      name: 'Kim',
    };
    const created = await registerUser(testApp.app, { ...record, password: 'kim-password' });
    const post = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
      testApp.app.inject({
        method: 'POST',
        url,
        payload: payload as object,
        headers,
        remoteAddress: '203.0.113.9',
      });
    for (let attempt = 0; attempt < 3; attempt += 1) {
      expect(
        (await post('/v2/users/register', { ...record, password: `wrong-guess-${attempt}` })).statusCode,
      ).toBe(409);
    }
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const change = await post(
        '/v1/auth/password',
        { current_password: `wrong-guess-${attempt}`, new_password: 'new-kim-password' },
        bearer(created.token),
      );
      expect(change.statusCode).toBe(403);
    }
    expect((await post('/v2/users/register', { ...record, password: 'kim-password' })).statusCode).toBe(429);
  });

  it('counts failures against one account whether it is named by e-mail, by username or by e-mail as username', async () => {
    const email = `named-${unique()}@corp.com`;
    const username = `named_${unique()}`;
    await registerUser(testApp.app, { email, username, password: 'the-right-password' });
    const attempt = (payload: object, index: number) =>
      testApp.app.inject({
        method: 'POST',
        url: '/v1/auth/token',
        payload,
        remoteAddress: `198.51.100.${120 + index}`,
      });
    const guesses = [
      { email },
      { username: email },
      { username },
      { username: email.toUpperCase() },
      { email, username: null },
      { username: ` ${email} ` },
    ];
    const statuses = [];
    for (const [index, name] of guesses.entries()) {
      statuses.push((await attempt({ ...name, password: `guess-${index}` }, index)).statusCode);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401]);
    // The sixth failure blocks the account under every name it has.
    for (const name of [{ username: email }, { email }, { username }]) {
      expect((await attempt({ ...name, password: 'the-right-password' }, 10)).statusCode).toBe(429);
    }
    // An address nobody has is counted the same whichever field names it.
    const nobody = `nobody-${unique()}@corp.com`;
    const unknown = [];
    for (let index = 0; index < 7; index += 1) {
      const name = index % 2 === 0 ? { username: nobody } : { email: nobody.toUpperCase() };
      unknown.push((await attempt({ ...name, password: 'Winter2026!' }, 20 + index)).statusCode);
    }
    expect(unknown).toEqual([401, 401, 401, 401, 401, 401, 429]);
  });
});

describe('registration per address, and scrypt work in a bounded line', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp({
      env: {
        REGISTRATIONS_PER_HOUR_PER_ADDRESS: '3',
        PASSWORD_HASH_CONCURRENCY: '1',
        PASSWORD_HASH_QUEUE: '2',
        PASSWORD_SCRYPT_LOG_N: '16',
      },
    });
  });
  afterAll(() => testApp.close());

  const register = (remoteAddress: string, headers: Record<string, string> = {}) =>
    testApp.app.inject({
      method: 'POST',
      url: '/v2/users/register',
      remoteAddress,
      headers,
      payload: {
        type: 'oidc',
        provider: 'google',
        provider_account_id: `g-${unique()}`,
        email: `new-${unique()}@corp.com`,
        name: 'New',
      },
    });

  it('limits registrations without the secret to REGISTRATIONS_PER_HOUR_PER_ADDRESS per address', async () => {
    const statuses = [];
    for (let attempt = 0; attempt < 5; attempt += 1)
      statuses.push((await register('198.51.100.77')).statusCode);
    expect(statuses).toEqual([201, 201, 201, 429, 429]);
    const refused = await register('198.51.100.77');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(3000);
    expect((await register('198.51.100.78')).statusCode).toBe(201);
    // The front end registers everyone from its own address: its secret is not limited.
    expect((await register('198.51.100.77', bearer(SECRET))).statusCode).toBe(201);
  });

  it('answers 503 with Retry-After rather than hashing more passwords at once than configured', async () => {
    const email = `busy-${unique()}@corp.com`;
    await registerUser(testApp.app, { email, password: 'busy-password' });
    const attempts = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        testApp.app.inject({
          method: 'POST',
          url: '/v1/auth/token',
          payload: { email, password: index === 0 ? 'busy-password' : 'wrong-password' },
          remoteAddress: `198.51.100.${100 + index}`,
        }),
      ),
    );
    const statuses = attempts.map((response) => response.statusCode);
    // One hashing, two waiting; the rest are turned away at once.
    expect(statuses.filter((status) => status === 503)).toHaveLength(5);
    expect(
      statuses.filter((status) => status !== 503).every((status) => status === 200 || status === 401),
    ).toBe(true);
    const busy = attempts.find((response) => response.statusCode === 503);
    expect(busy?.headers['retry-after']).toBe('1');
    expect(busy?.json().detail).toMatch(/password checks/);
  });
});

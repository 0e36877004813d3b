import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateAccessToken, hashAccessToken, secretsEqual } from './access-tokens.js';
import { hashPassword, PasswordHasher, PasswordHasherBusy, verifyPassword } from './passwords.js';
import { SecretBox } from './secret-box.js';

describe('SecretBox', () => {
  it('round-trips and never shows the plaintext', () => {
    const box = new SecretBox(randomBytes(32));
    const sealed = box.seal('xoxb-secret-token');
    expect(sealed).not.toContain('xoxb');
    expect(sealed).toMatch(/^v1\./);
    expect(box.open(sealed)).toBe('xoxb-secret-token');
    expect(box.seal('same')).not.toBe(box.seal('same'));
    expect(box.openJson(box.sealJson({ a: 1 }))).toEqual({ a: 1 });
  });

  it('refuses a tampered ciphertext or another key', () => {
    const box = new SecretBox(randomBytes(32));
    const sealed = box.seal('secret');
    const tampered = `${sealed.slice(0, -2)}${sealed.endsWith('A') ? 'B' : 'A'}A`;
    expect(() => box.open(tampered)).toThrow();
    expect(() => new SecretBox(randomBytes(32)).open(sealed)).toThrow();
  });
});

describe('passwords', () => {
  it('hashes with scrypt and verifies in constant time', async () => {
    const stored = await hashPassword('correct horse', 10);
    expect(stored).toMatch(/^scrypt\$10\$8\$1\$/);
    expect(await verifyPassword('correct horse', stored)).toBe(true);
    expect(await verifyPassword('wrong horse', stored)).toBe(false);
    expect(await verifyPassword('x', 'garbage')).toBe(false);
  });

  it('uses the OWASP cost by default without running out of memory', async () => {
    const stored = await hashPassword('pw', 17);
    expect(await verifyPassword('pw', stored)).toBe(true);
  });
});

describe('access tokens', () => {
  it('are random and stored as SHA-256', () => {
    const token = generateAccessToken();
    expect(token).not.toBe(generateAccessToken());
    expect(hashAccessToken(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(secretsEqual('abc', 'abc')).toBe(true);
    expect(secretsEqual('abc', 'abcd')).toBe(false);
  });
});

describe('PasswordHasher', () => {
  it('hashes at most `concurrency` at once, lets `maxQueued` wait and turns the rest away', async () => {
    const hasher = new PasswordHasher({ logN: 14, concurrency: 1, maxQueued: 2 });
    const stored = await hasher.hash('correct horse');
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, (_, index) => hasher.verify(index === 0 ? 'correct horse' : 'wrong', stored)),
    );
    expect(results.map((result) => result.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'rejected',
      'rejected',
      'rejected',
    ]);
    expect(results.slice(0, 3).map((result) => (result as PromiseFulfilledResult<boolean>).value)).toEqual([
      true,
      false,
      false,
    ]);
    expect((results[3] as PromiseRejectedResult).reason).toBeInstanceOf(PasswordHasherBusy);
    // The line drains: later checks run again.
    expect(await hasher.verify('correct horse', stored)).toBe(true);
    expect(await hasher.verify('anything', null)).toBe(false);
  });
});

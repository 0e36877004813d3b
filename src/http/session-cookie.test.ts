import { describe, expect, it } from 'vitest';
import { clearedSessionCookie, cookieValue, sessionCookie } from './session-cookie.js';

describe('cookieValue', () => {
  it('finds a cookie among others, trimmed, quotes taken off', () => {
    expect(cookieValue('a=1; ka_session=kat_x; b=2', 'ka_session')).toBe('kat_x');
    expect(cookieValue(' ka_session = kat_y ', 'ka_session')).toBe('kat_y');
    expect(cookieValue('ka_session="kat_z"', 'ka_session')).toBe('kat_z');
    expect(cookieValue('ka_session=first; ka_session=second', 'ka_session')).toBe('first');
  });

  it('finds nothing in a header without it, an empty value or a name that only ends like it', () => {
    expect(cookieValue(undefined, 'ka_session')).toBeUndefined();
    expect(cookieValue('', 'ka_session')).toBeUndefined();
    expect(cookieValue('ka_session=', 'ka_session')).toBeUndefined();
    expect(cookieValue('xka_session=1; ka_sessionx=2; ka_session', 'ka_session')).toBeUndefined();
    expect(cookieValue('flag; other=1=2; ka_session=v=w', 'ka_session')).toBe('v=w');
  });

  // How its time grows with a hostile header's length is checked in indexing/regex-safety.test.ts.
  it('finds the cookie after a long hostile run of empty pairs', () => {
    const header = `${'=;'.repeat(200_000)}${' ;'.repeat(200_000)}ka_session=found`;
    expect(cookieValue(header, 'ka_session')).toBe('found');
  });
});

describe('sessionCookie and clearedSessionCookie', () => {
  it('carry every attribute, Secure only over https', () => {
    expect(sessionCookie('kat_t', 60, false)).toBe(
      'ka_session=kat_t; Path=/; HttpOnly; SameSite=Strict; Max-Age=60',
    );
    expect(sessionCookie('kat_t', 60, true)).toBe(
      'ka_session=kat_t; Path=/; HttpOnly; SameSite=Strict; Max-Age=60; Secure',
    );
    expect(clearedSessionCookie(false)).toBe('ka_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0');
  });
});

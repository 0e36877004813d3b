import { describe, expect, it } from 'vitest';
import { headerValue, MAX_RETRY_AFTER_HEADER_SECONDS, parseRetryAfter } from './headers.js';

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');

  it.each([
    ['delta-seconds', '120', 120],
    ['zero, with spaces around it', ' 0 ', 0],
    ['leading zeros', '007', 7],
    ['IMF-fixdate, 30 s ahead', 'Wed, 01 Jan 2025 00:00:30 GMT', 30],
    ['IMF-fixdate, this very second', 'Wed, 01 Jan 2025 00:00:00 GMT', 0],
    ['IMF-fixdate in the past', 'Tue, 31 Dec 2024 23:00:00 GMT', 0],
    ['IMF-fixdate, a one-digit day', 'Wed, 1 Jan 2025 00:01:00 GMT', 60],
    ['IMF-fixdate in another case', 'WED, 01 JAN 2025 00:00:10 gmt', 10],
    ['RFC 850 date', 'Wednesday, 01-Jan-25 00:00:30 GMT', 30],
    [
      'RFC 850 date, a two-digit year read as the past (more than 50 years ahead)',
      'Friday, 01-Jan-99 00:00:00 GMT',
      0,
    ],
    ['asctime date (GMT, not local time)', 'Wed Jan  1 00:00:30 2025', 30],
    ['a leap second', 'Wed, 01 Jan 2025 00:00:60 GMT', 60],
    ['huge delta-seconds, capped', '99999999999999999999', MAX_RETRY_AFTER_HEADER_SECONDS],
    ['a far future date, capped', 'Fri, 01 Jan 9999 00:00:00 GMT', MAX_RETRY_AFTER_HEADER_SECONDS],
  ])('reads %s', (_label, value, seconds) => {
    expect(parseRetryAfter(value, now)).toBe(seconds);
  });

  it('rounds the time until a date up to whole seconds', () => {
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:30 GMT', now + 500)).toBe(30);
  });

  it.each([
    ['absent', undefined],
    ['null (Headers.get)', null],
    ['empty', ''],
    ['blank', '   '],
    ['negative', '-5'],
    ['fractional', '1.5'],
    ['signed', '+5'],
    ['a number with a unit', '5s'],
    ['a word', 'soon'],
    ['an ISO date (not an HTTP-date)', '2025-01-01T00:00:30Z'],
    ['a date in another zone', 'Wed, 01 Jan 2025 00:00:30 +0100'],
    ['a day that does not exist', 'Fri, 31 Feb 2025 00:00:00 GMT'],
    ['an hour that does not exist', 'Wed, 01 Jan 2025 24:00:00 GMT'],
    ['an unknown month', 'Wed, 01 Foo 2025 00:00:00 GMT'],
  ])('ignores %s', (_label, value) => {
    expect(parseRetryAfter(value, now)).toBeUndefined();
  });
});

describe('headerValue', () => {
  it('reads a Headers object, whatever the case of the name', () => {
    expect(headerValue(new Headers({ 'Retry-After': '7' }), 'retry-after')).toBe('7');
    expect(headerValue(new Headers(), 'retry-after')).toBeUndefined();
  });

  it('reads any object with get(), as gaxios hands headers over', () => {
    const headers = new Map([['retry-after', '3']]);
    expect(headerValue(headers, 'retry-after')).toBe('3');
    expect(headerValue({ get: () => 42 }, 'retry-after')).toBeUndefined();
  });

  it('reads a plain record without regard to case, a repeated header by its first value', () => {
    expect(headerValue({ 'retry-after': '5' }, 'retry-after')).toBe('5');
    expect(headerValue({ 'Retry-After': '5' }, 'retry-after')).toBe('5');
    expect(headerValue({ 'retry-after': ['3', '9'] }, 'Retry-After')).toBe('3');
    expect(headerValue({ 'content-length': 12 }, 'content-length')).toBeUndefined();
    expect(headerValue({}, 'retry-after')).toBeUndefined();
  });

  it('reads nothing from what is not headers', () => {
    expect(headerValue(undefined, 'retry-after')).toBeUndefined();
    expect(headerValue(null, 'retry-after')).toBeUndefined();
    expect(headerValue('retry-after: 5', 'retry-after')).toBeUndefined();
  });
});

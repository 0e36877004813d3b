import { describe, expect, it } from 'vitest';
import { normalizeEmail, sameEmailAddress } from './email-address.js';

describe('normalizeEmail', () => {
  it.each([
    ['Victim@Corp.COM', 'victim@corp.com'],
    ['  ann@corp.com ', 'ann@corp.com'],
    // Full-width letters and the full-width at sign fold to ASCII (NFKC).
    ['ｖｉｃｔｉｍ＠ｃｏｒｐ．ｃｏｍ', 'victim@corp.com'],
    ['ﬁnance@corp.com', 'finance@corp.com'],
    ['ann@bücher.de', 'ann@xn--bcher-kva.de'],
    ['ann@corp.com.', 'ann@corp.com'],
    ["o'brien+tag@mail.corp.com", "o'brien+tag@mail.corp.com"],
  ])('%s is %s', (raw, email) => {
    expect(normalizeEmail(raw)).toEqual({ ok: true, email });
  });

  it.each([
    ['v\u0456ctim@corp.com', /ASCII/],
    ['виктор@corp.com', /ASCII/],
    ['ann@corp_com', /host name/],
    ['ann@-corp.com', /host name/],
    ['ann@', /valid email/],
    ['@corp.com', /valid email/],
    ['ann..b@corp.com', /valid email/],
    ['.ann@corp.com', /valid email/],
    ['a nn@corp.com', /valid email/],
    [`${'a'.repeat(65)}@corp.com`, /valid email/],
  ])('refuses %s', (raw, problem) => {
    const result = normalizeEmail(raw);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problem).toMatch(problem);
  });

  it('compares any spelling with the stored one', () => {
    expect(sameEmailAddress('ＡＮＮ@Corp.com', 'ann@corp.com')).toBe(true);
    expect(sameEmailAddress('ann@bücher.de', 'ann@xn--bcher-kva.de')).toBe(true);
    expect(sameEmailAddress('anne@corp.com', 'ann@corp.com')).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { ssoErrorWords } from './sso-errors';

describe('ssoErrorWords', () => {
  it('says each known reason in a sentence, never the code alone', () => {
    const codes = [
      'cancelled',
      'provider_error',
      'expired',
      'invalid_token',
      'email_not_verified',
      'no_email',
      'account_disabled',
      'provider_unreachable',
    ];
    const sentences = codes.map(ssoErrorWords);
    for (const words of sentences) {
      expect(words).toMatch(/you were not signed in\. \S/);
      // No code such as email_not_verified in the words a person reads.
      expect(words).not.toContain('_');
    }
    // Each reason its own sentence, none the general one.
    expect(new Set(sentences).size).toBe(codes.length);
    expect(sentences).not.toContain(ssoErrorWords('something_new'));
    expect(ssoErrorWords('email_not_verified')).toBe(
      'Your identity provider has not verified your e-mail address, so you were not signed in. Ask your IT team to verify it.',
    );
  });

  it('has a general sentence for a code it does not know, or an inherited property name', () => {
    expect(ssoErrorWords('something_new')).toMatch(/^Single sign-on did not work/);
    expect(ssoErrorWords('toString')).toMatch(/^Single sign-on did not work/);
  });
});

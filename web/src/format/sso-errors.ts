/**
 * Why a single sign-on came back without signing anyone in (`/?sso_error=<code>`), in words a
 * person acts on: what happened, then what to do. Never the bare code.
 */
const SSO_ERRORS: Readonly<Record<string, string>> = {
  cancelled: 'Single sign-on was cancelled, so you were not signed in. Sign in again when you are ready.',
  provider_error:
    'Your identity provider refused the sign-in, so you were not signed in. Try again, or ask your IT team if it keeps happening.',
  expired: 'The sign-in took too long and expired, so you were not signed in. Try again.',
  invalid_token:
    'The answer from your identity provider could not be verified, so you were not signed in. Try again, or ask your IT team to check the single sign-on set-up.',
  email_not_verified:
    'Your identity provider has not verified your e-mail address, so you were not signed in. Ask your IT team to verify it.',
  no_email:
    'Your identity provider did not share your e-mail address, so you were not signed in. Ask your IT team to share it with this service.',
  account_disabled:
    'Your account is turned off, so you were not signed in. Ask your IT team or your team’s owner to turn it back on.',
  provider_unreachable:
    'Your identity provider could not be reached, so you were not signed in. Try again in a moment.',
};

const UNKNOWN_SSO_ERROR =
  'Single sign-on did not work, so you were not signed in. Try again, or ask your IT team if it keeps happening.';

export function ssoErrorWords(code: string): string {
  return Object.hasOwn(SSO_ERRORS, code) ? (SSO_ERRORS[code] as string) : UNKNOWN_SSO_ERROR;
}

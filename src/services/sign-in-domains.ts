import { domainToASCII } from 'node:url';

/** A team may claim this many sign-in domains. */
export const MAX_SIGN_IN_DOMAINS = 50;

/** RFC 1035: 253 characters in a name's text form, 63 in a label. */
const MAX_DOMAIN_LENGTH = 253;
const DOMAIN_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * Mail services where anyone can have an address: claiming one would let every stranger with an
 * address there sign in to the team.
 */
const PUBLIC_MAIL_DOMAINS: ReadonlySet<string> = new Set([
  'gmail.com',
  'googlemail.com',
  'outlook.com',
  'hotmail.com',
  'live.com',
  'msn.com',
  'yahoo.com',
  'icloud.com',
  'me.com',
  'mac.com',
  'aol.com',
  'proton.me',
  'protonmail.com',
  'gmx.com',
  'gmx.de',
  'mail.com',
  'yandex.com',
  'zoho.com',
]);

export type SignInDomain =
  | { readonly ok: true; readonly domain: string }
  | { readonly ok: false; readonly problem: string };

/**
 * A domain as a team claims it, in the spelling proven addresses are stored with (see
 * normalizeEmail): lower-cased, internationalised names in their ASCII (xn--) form, without a
 * trailing dot. Refused: anything but a host name with at least one dot (no scheme, path, `@`,
 * spaces, IP address or wildcard), and the public mail services.
 */
export function normalizeSignInDomain(raw: string): SignInDomain {
  if (/\s/.test(raw)) return { ok: false, problem: 'a domain name has no spaces' };
  if (raw.includes('@')) {
    return {
      ok: false,
      problem: 'a domain name, not an e-mail address: the part after @ (such as example.com)',
    };
  }
  if (raw.includes('/') || raw.includes(':')) {
    return { ok: false, problem: 'a bare domain name such as example.com, without a scheme, port or path' };
  }
  const folded = raw.normalize('NFKC').toLowerCase().replace(/\.$/, '');
  const domain = folded === '' ? '' : domainToASCII(folded);
  const labels = domain.split('.');
  if (domain === '' || labels.length < 2 || !labels.every((label) => DOMAIN_LABEL.test(label))) {
    return { ok: false, problem: 'not a domain name such as example.com' };
  }
  if (domain.length > MAX_DOMAIN_LENGTH) {
    return { ok: false, problem: `a domain name has at most ${MAX_DOMAIN_LENGTH} characters` };
  }
  // A numeric top-level label is an IPv4 address, never a mail domain.
  if (/^[0-9]+$/.test(labels.at(-1) ?? '')) {
    return { ok: false, problem: 'a domain name such as example.com, not an IP address' };
  }
  if (PUBLIC_MAIL_DOMAINS.has(domain)) {
    return {
      ok: false,
      problem: `${domain} is a public mail service: anyone can have an address there, so it cannot admit people to a team`,
    };
  }
  return { ok: true, domain };
}

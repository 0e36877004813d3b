import { domainToASCII } from 'node:url';

/** RFC 5321's limits: 64 characters before the `@`, 254 in all. */
const MAX_LOCAL_LENGTH = 64;
const MAX_ADDRESS_LENGTH = 254;

// A dot-atom of RFC 5322's printable ASCII: no spaces, quotes or leading, trailing or doubled dots.
const LOCAL_PART = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const DOMAIN_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export type NormalizedEmail =
  | { readonly ok: true; readonly email: string }
  | { readonly ok: false; readonly problem: string };

/**
 * The one spelling of an e-mail address that accounts are keyed by: NFKC-normalised (so the
 * full-width `ｖictim@corp.com` is `victim@corp.com`), lower-cased, the domain in its ASCII (IDNA)
 * form. Addresses whose local part is not ASCII are refused: look-alike letters from other
 * scripts (Cyrillic `і`) would otherwise be a second account for what reads as the same address.
 */
export function normalizeEmail(raw: string): NormalizedEmail {
  const folded = raw.normalize('NFKC').trim().toLowerCase();
  const at = folded.lastIndexOf('@');
  if (at <= 0 || at === folded.length - 1)
    return { ok: false, problem: 'value is not a valid email address' };
  const local = folded.slice(0, at);
  const domain = domainToASCII(folded.slice(at + 1).replace(/\.$/, ''));
  if (!isAscii(local)) {
    return { ok: false, problem: 'value is not a valid email address: the part before @ must be ASCII' };
  }
  if (local.length > MAX_LOCAL_LENGTH || !LOCAL_PART.test(local)) {
    return { ok: false, problem: 'value is not a valid email address' };
  }
  if (domain === '' || !domain.split('.').every((label) => DOMAIN_LABEL.test(label))) {
    return { ok: false, problem: 'value is not a valid email address: the domain is not a valid host name' };
  }
  const email = `${local}@${domain}`;
  if (email.length > MAX_ADDRESS_LENGTH) return { ok: false, problem: 'value is not a valid email address' };
  return { ok: true, email };
}

function isAscii(text: string): boolean {
  for (let index = 0; index < text.length; index += 1) {
    if (text.charCodeAt(index) > 0x7e) return false;
  }
  return true;
}

/** Whether two spellings are one address (as accounts key them); unusable addresses match only exactly. */
export function sameEmailAddress(given: string, stored: string): boolean {
  const normalized = normalizeEmail(given);
  return normalized.ok ? normalized.email === stored : given.trim().toLowerCase() === stored;
}

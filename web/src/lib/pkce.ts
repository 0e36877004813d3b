/** RFC 7636 (PKCE) and OAuth `state` values, made with the browser's own cryptography. */

function base64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** 32 random bytes as base64url: 43 characters, a valid `code_verifier` and an unguessable `state`. */
export function randomToken(): string {
  return base64Url(crypto.getRandomValues(new Uint8Array(32)));
}

/**
 * The S256 `code_challenge` of a verifier. `crypto.subtle` exists only in secure contexts (https,
 * or http on localhost/127.0.0.1): elsewhere connecting is refused in words rather than done
 * without PKCE.
 */
export async function codeChallenge(verifier: string): Promise<string> {
  if (globalThis.crypto?.subtle === undefined) {
    throw new Error(
      'Connecting needs a secure page: open the service over https (or on localhost) and try again.',
    );
  }
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return base64Url(new Uint8Array(digest));
}

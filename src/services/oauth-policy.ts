import { createHash, randomBytes } from 'node:crypto';

/** The one scope there is: search, read and ask as the person, at /mcp. */
export const MCP_SCOPE = 'mcp';
/** What the consent page says the scope allows, line by line. */
export const MCP_SCOPE_ABILITIES: readonly string[] = [
  'Search the documents you can open and read them',
  'Ask questions; the answers are saved to your chats',
];

/** An access token's life: short, so a leaked one is worth little; the refresh token renews it. */
export const ACCESS_TOKEN_TTL_SECONDS = 3600;
/** A refresh token's life from its issue; each use rotates it, so an active client never reaches it. */
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 3600;
/** Between the consent's Allow and the client's exchange: a redirect and one request. */
export const AUTHORIZATION_CODE_TTL_SECONDS = 300;

/** The protected resource (RFC 8707 / RFC 9728) the tokens are for. */
export function mcpResource(publicUrl: string): string {
  return `${publicUrl}/mcp`;
}

/** Whether a requested `resource` names /mcp (a trailing slash forgiven). */
export function isMcpResource(publicUrl: string, resource: string): boolean {
  return resource.replace(/\/+$/, '') === mcpResource(publicUrl);
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Why a redirect URI cannot be registered, or undefined when it can: `https://`, or `http://` on
 * the loopback interface (a desktop or command-line client, RFC 8252), without a fragment.
 */
export function redirectUriProblem(uri: string): string | undefined {
  if (!URL.canParse(uri)) return `${uri.slice(0, 100)} is not an absolute URL`;
  const url = new URL(uri);
  if (url.hash !== '' || uri.includes('#')) return 'A redirect URI must not have a fragment';
  if (url.username !== '' || url.password !== '') return 'A redirect URI must not carry credentials';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return undefined;
  return 'Redirect URIs must be https:// or http:// on localhost, 127.0.0.1 or [::1]';
}

/**
 * Whether `requested` is the registered URI: exactly, or for a loopback URI on any port (RFC 8252
 * §7.3: a native client listens on whichever port it gets).
 */
export function redirectUriMatches(registered: string, requested: string): boolean {
  if (registered === requested) return true;
  if (!URL.canParse(registered) || !URL.canParse(requested)) return false;
  const a = new URL(registered);
  const b = new URL(requested);
  if (a.protocol !== 'http:' || !LOOPBACK_HOSTS.has(a.hostname)) return false;
  return (
    b.protocol === 'http:' &&
    a.hostname === b.hostname &&
    a.pathname === b.pathname &&
    a.search === b.search &&
    !requested.includes('#')
  );
}

/** RFC 7636's code_verifier and code_challenge alphabet and length. */
export const PKCE_VALUE = /^[A-Za-z0-9._~-]{43,128}$/;

/** S256: BASE64URL(SHA-256(verifier)). */
export function pkceChallengeOf(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

/** A new authorization code or refresh token: random, shown once, stored as SHA-256 like tokens. */
export function generateOAuthSecret(prefix: 'kac_' | 'kar_'): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

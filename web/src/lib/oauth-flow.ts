import { codeChallenge, randomToken } from './pkce';

/** The sources connected by sending the browser to their provider and back. */
export type OAuthProvider = 'google-drive' | 'slack';

/** Where each provider sends the browser back to (the app's routes; the server's SPA fallback serves them). */
export const CALLBACK_PATHS: Readonly<Record<OAuthProvider, string>> = {
  'google-drive': '/connectors/google-drive/callback',
  slack: '/connectors/slack/callback',
};

/** What is kept across the trip to the provider: this tab only, gone once the callback reads it. */
interface PendingAuthorization {
  state: string;
  /** PKCE: sent, hashed, in the authorization request; in the clear only to the token endpoint. */
  verifier?: string;
}

const storageKey = (provider: OAuthProvider) => `oauth-pending:${provider}`;

export interface AuthorizationRequest {
  authorizeUrl: string;
  /** Query parameters besides `state` (and, with PKCE, the challenge). */
  params: Record<string, string>;
  pkce: boolean;
}

/** The provider's authorization URL for a new attempt, after remembering its state (and verifier). */
export async function beginAuthorization(
  provider: OAuthProvider,
  request: AuthorizationRequest,
  storage: Storage = sessionStorage,
): Promise<string> {
  const pending: PendingAuthorization = { state: randomToken() };
  const url = new URL(request.authorizeUrl);
  for (const [name, value] of Object.entries(request.params)) url.searchParams.set(name, value);
  url.searchParams.set('state', pending.state);
  if (request.pkce) {
    pending.verifier = randomToken();
    url.searchParams.set('code_challenge', await codeChallenge(pending.verifier));
    url.searchParams.set('code_challenge_method', 'S256');
  }
  storage.setItem(storageKey(provider), JSON.stringify(pending));
  return url.href;
}

export type CallbackOutcome =
  | { kind: 'code'; code: string; verifier: string | undefined }
  | { kind: 'refused'; message: string };

const PROVIDER_NAMES: Readonly<Record<OAuthProvider, string>> = {
  'google-drive': 'Google Drive',
  slack: 'Slack',
};

/**
 * Reads the provider's redirect back (`?code=…&state=…` or `?error=…`). The state must be the one
 * this tab sent (a link someone else made cannot connect their account to yours); it is used once.
 */
export function finishAuthorization(
  provider: OAuthProvider,
  query: URLSearchParams,
  storage: Storage = sessionStorage,
): CallbackOutcome {
  const name = PROVIDER_NAMES[provider];
  const raw = storage.getItem(storageKey(provider));
  storage.removeItem(storageKey(provider));
  let pending: PendingAuthorization | undefined;
  try {
    pending = raw === null ? undefined : (JSON.parse(raw) as PendingAuthorization);
  } catch {
    pending = undefined;
  }
  const state = query.get('state');
  if (pending === undefined || state === null || state !== pending.state) {
    return {
      kind: 'refused',
      message: `${name} was not connected: this answer does not belong to a request from this tab. Connect again.`,
    };
  }
  const error = query.get('error');
  if (error !== null) {
    return {
      kind: 'refused',
      message:
        error === 'access_denied'
          ? `${name} was not connected: access was not allowed.`
          : `${name} was not connected: it answered “${error}”.`,
    };
  }
  const code = query.get('code');
  if (code === null || code === '') {
    return { kind: 'refused', message: `${name} was not connected: it sent no authorization code.` };
  }
  return { kind: 'code', code, verifier: pending.verifier };
}

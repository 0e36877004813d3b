import type { OidcProvider } from '../adapters/oidc/oidc-provider.js';
import { OidcError } from '../adapters/oidc/oidc-provider.js';
import { ServiceError } from '../errors.js';
import type { ServiceDependencies } from './dependencies.js';

/** How long a sign-in may spend at the provider before its login state is refused (`expired`). */
export const OIDC_LOGIN_TTL_SECONDS = 600;

/** Why a single sign-on failed, as the sign-in page says it (`/?sso_error=<code>`). */
export type OidcSignInFailure =
  | 'cancelled'
  | 'provider_error'
  | 'expired'
  | 'invalid_token'
  | 'email_not_verified'
  | 'no_email'
  | 'account_disabled'
  | 'provider_unreachable';

/** A failure with its detail for the log (no secrets, no tokens), never for the page. */
export interface OidcFailureResult {
  readonly ok: false;
  readonly failure: OidcSignInFailure;
  readonly detail: string;
}

/** What the callback must find again: kept sealed (encrypted and authenticated) in the browser. */
export interface OidcLoginState {
  readonly state: string;
  readonly nonce: string;
  readonly codeVerifier: string;
  /** Epoch milliseconds after which the login state is refused, whatever the cookie's Max-Age. */
  readonly expiresAt: number;
  /** The page of this service to go back to once signed in (an MCP client's consent page); absent: `/`. */
  readonly returnTo?: string;
}

const MAX_RETURN_PATH_LENGTH = 4000;

/**
 * `value` when it is a path of this service to send a browser back to, else undefined: it starts
 * with one `/` (not `//` or `/\`, which browsers read as another host) and holds no control
 * characters, so a sign-in link cannot send anyone elsewhere.
 */
export function localReturnPath(value: string | undefined): string | undefined {
  if (value === undefined || value.length > MAX_RETURN_PATH_LENGTH) return undefined;
  if (!value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return undefined;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f\\]/.test(value)) return undefined;
  return value;
}

export type OidcStart =
  | {
      readonly ok: true;
      /** The provider's authorization URL to send the browser to. */
      readonly redirectUrl: string;
      /** The login state, sealed by the service's secret box, for the browser to carry back. */
      readonly sealedLogin: string;
      readonly maxAgeSeconds: number;
    }
  | OidcFailureResult;

export const SSO_NOT_CONFIGURED = 'Single sign-on is not configured';

/**
 * Starts a single sign-on: a fresh state, nonce and PKCE verifier, sealed for the browser to carry,
 * and the provider's authorization URL. Discovery that failed before (at start, or last time) is
 * tried again here; still failing, it is `provider_unreachable`. Not configured: 404.
 */
export async function startOidcSignIn(deps: ServiceDependencies, returnTo?: string): Promise<OidcStart> {
  const provider = configuredProvider(deps);
  try {
    const request = await provider.beginAuthorization();
    const login: OidcLoginState = {
      state: request.state,
      nonce: request.nonce,
      codeVerifier: request.codeVerifier,
      expiresAt: deps.now().getTime() + OIDC_LOGIN_TTL_SECONDS * 1000,
      ...(localReturnPath(returnTo) === undefined ? {} : { returnTo }),
    };
    return {
      ok: true,
      redirectUrl: request.url,
      sealedLogin: deps.secrets.sealJson(login),
      maxAgeSeconds: OIDC_LOGIN_TTL_SECONDS,
    };
  } catch (error) {
    if (error instanceof OidcError) return { ok: false, failure: error.failure, detail: error.message };
    throw error;
  }
}

/** The provider, or 404 when single sign-on is not configured. */
export function configuredProvider(deps: ServiceDependencies): OidcProvider {
  if (deps.oidc === undefined) throw new ServiceError('not_found', SSO_NOT_CONFIGURED);
  return deps.oidc;
}

/**
 * The login state a sealed value holds, while it is unexpired at `now`; undefined when absent,
 * tampered with, sealed by another key, malformed or expired.
 */
export function openLoginState(
  deps: Pick<ServiceDependencies, 'secrets'>,
  sealed: string | undefined,
  now: Date,
): OidcLoginState | undefined {
  if (sealed === undefined || sealed === '') return undefined;
  let login: Partial<OidcLoginState>;
  try {
    login = deps.secrets.openJson<Partial<OidcLoginState>>(sealed);
  } catch {
    return undefined;
  }
  if (
    typeof login?.state !== 'string' ||
    typeof login.nonce !== 'string' ||
    typeof login.codeVerifier !== 'string' ||
    typeof login.expiresAt !== 'number' ||
    login.expiresAt <= now.getTime() ||
    (login.returnTo !== undefined && localReturnPath(login.returnTo) === undefined)
  ) {
    return undefined;
  }
  return login as OidcLoginState;
}

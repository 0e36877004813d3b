/** Why talking to the sign-in provider failed, as the use cases tell the person. */
export type OidcFailure =
  /** Discovery, the token endpoint or the JWKS could not be reached, or answered nonsense. */
  | 'provider_unreachable'
  /** The provider refused the exchange for a reason of its own (a client it does not know, …). */
  | 'provider_error'
  /** The code was refused (used, expired) or the ID token failed verification. */
  | 'invalid_token';

/** The one error of an `OidcProvider`: `failure` for the person, the message (no secrets, no tokens) for the log. */
export class OidcError extends Error {
  constructor(
    readonly failure: OidcFailure,
    message: string,
    options: { readonly cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'OidcError';
  }
}

/** Where to send the browser, and what the callback must find again (kept sealed in a cookie). */
export interface OidcAuthorizationRequest {
  readonly url: string;
  readonly state: string;
  readonly nonce: string;
  readonly codeVerifier: string;
}

/** What the verified ID token says of the person. */
export interface OidcIdentity {
  /** `sub`: the provider's stable id of the person. */
  readonly subject: string;
  readonly email: string | undefined;
  /** `email_verified` is true: the provider vouches that the address is the person's. */
  readonly emailVerified: boolean;
  readonly name: string | undefined;
}

/**
 * The company's OpenID Connect provider: the authorization code flow with PKCE (S256), `state`
 * and `nonce`. Every failure is an `OidcError`.
 */
export interface OidcProvider {
  /** The configured issuer identifier. */
  readonly issuer: string;
  /**
   * Fetches and checks the discovery document, unless that was done: a failure is remembered by
   * nobody, so the next call tries again (`provider_unreachable`).
   */
  discover(): Promise<void>;
  /** A fresh authorization request (new state, nonce and PKCE verifier). */
  beginAuthorization(): Promise<OidcAuthorizationRequest>;
  /**
   * Exchanges the code the provider sent back (`callbackParameters`: the callback's query) and
   * verifies the ID token: signature against the provider's JWKS, `iss`, `aud`, `exp`, `iat` and
   * the `nonce` of `expected`.
   */
  completeAuthorization(
    callbackParameters: URLSearchParams,
    expected: { readonly state: string; readonly nonce: string; readonly codeVerifier: string },
  ): Promise<OidcIdentity>;
}

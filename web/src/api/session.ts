import { requestJson, requestNothing } from './http';
import type { CurrentUser } from './types';

/** GET /v1/users/me: who is signed in (a 401 means no one: the sign-in page). */
export function getCurrentUser(signal?: AbortSignal): Promise<CurrentUser> {
  return requestJson<CurrentUser>('GET', '/v1/users/me', signal === undefined ? {} : { signal });
}

/**
 * POST /v1/auth/session: signs in; the service answers the user and sets an HttpOnly session
 * cookie, so no token ever reaches this script. A 401 is a wrong e-mail or password.
 */
export function signIn(email: string, password: string): Promise<CurrentUser> {
  return requestJson<CurrentUser>('POST', '/v1/auth/session', {
    body: { username: email, password },
    expectUnauthorized: true,
  });
}

/** DELETE /v1/auth/session: the service revokes the session's token and clears the cookie. */
export function signOut(): Promise<void> {
  return requestNothing('DELETE', '/v1/auth/session', { expectUnauthorized: true });
}

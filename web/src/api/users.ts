import { requestJson, requestNothing } from './http';
import { signIn } from './session';
import type { CurrentUser } from './types';

export interface PasswordRegistration {
  email: string;
  password: string;
  name?: string;
  /** An invitation's code (from its link): the new user joins that team instead of getting one. */
  invitation?: string;
}

interface RegistrationAnswer {
  access_token: string;
}

/**
 * POST /v2/users/register with a password: creates the user, their team and its store, or with an
 * invitation joins its team (403 in the service's words: another e-mail, a used, withdrawn or
 * expired code). 409 is an e-mail already registered, 422 names each bad field (a password under 8
 * characters). The answer carries a bearer token, which the caller should revoke: the app signs in
 * by cookie instead.
 */
export async function registerWithPassword(registration: PasswordRegistration): Promise<string> {
  const body: Record<string, string> = { email: registration.email, password: registration.password };
  if (registration.name !== undefined && registration.name !== '') body.name = registration.name;
  if (registration.invitation !== undefined) body.invitation = registration.invitation;
  const answer = await requestJson<RegistrationAnswer>('POST', '/v2/users/register', {
    body,
    expectUnauthorized: true,
  });
  return answer.access_token;
}

/** DELETE /v1/auth/token with that token: the registration's token is never used again. */
export function revokeBearerToken(accessToken: string): Promise<void> {
  return requestNothing('DELETE', '/v1/auth/token', {
    headers: { authorization: `Bearer ${accessToken}` },
    expectUnauthorized: true,
  });
}

/**
 * Creates the account (`registerWithPassword`), then signs this browser in with it by cookie and
 * revokes the registration's bearer token, which is never used. `onRegistered` hears when the
 * account exists, before the sign-in that may still fail (a retry then only signs in).
 */
export async function registerAndSignIn(
  registration: PasswordRegistration,
  onRegistered: () => void = () => undefined,
): Promise<CurrentUser> {
  const token = await registerWithPassword(registration);
  onRegistered();
  try {
    return await signIn(registration.email, registration.password);
  } finally {
    await revokeBearerToken(token).catch(() => undefined);
  }
}

/** POST /v1/users/me/verify-email: mails a new confirmation link; answers the service's words. */
export async function requestEmailConfirmation(): Promise<string> {
  const answer = await requestJson<{ detail: string }>('POST', '/v1/users/me/verify-email');
  return answer.detail;
}

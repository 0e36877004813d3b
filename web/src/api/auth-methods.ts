import { requestJson } from './http';
import type { SignInMethods } from './types';

/** GET /v1/auth/methods (public): password sign-in, single sign-on, or both. */
export function getSignInMethods(signal?: AbortSignal): Promise<SignInMethods> {
  return requestJson<SignInMethods>('GET', '/v1/auth/methods', {
    expectUnauthorized: true,
    ...(signal === undefined ? {} : { signal }),
  });
}

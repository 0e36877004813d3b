import { expect } from 'vitest';
import { bearer, registerUser, TEST_REGISTRATION_SECRET, type TestApp, uniqueSuffix } from './test-app.js';

export type ScimMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Requests as a directory (SCIM) and as the team's people (JSON API) send them, to a test app. */
export function scimClient(testApp: () => TestApp) {
  /** A request to /scim/v2 as a directory sends it (`application/scim+json` bodies). */
  const scim = (method: ScimMethod, path: string, token: string | undefined, payload?: unknown) =>
    testApp().app.inject({
      method,
      url: `/scim/v2${path}`,
      headers: {
        ...(token === undefined ? {} : bearer(token)),
        ...(payload === undefined ? {} : { 'content-type': 'application/scim+json' }),
      },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });

  const api = (method: ScimMethod, url: string, token: string, payload?: Record<string, unknown>) =>
    testApp().app.inject({
      method,
      url,
      headers: bearer(token),
      ...(payload === undefined ? {} : { payload }),
    });

  /** A team: its owner (a proven address) and a SCIM token the owner made. */
  async function team() {
    const owner = await registerUser(
      testApp().app,
      { email: `owner-${uniqueSuffix()}@acme.com` },
      bearer(TEST_REGISTRATION_SECRET),
    );
    const created = await api('POST', '/v1/teams/scim-tokens', owner.token);
    expect(created.statusCode, created.body).toBe(201);
    return {
      owner,
      scimToken: created.json().token as string,
      ownerEmail: String((owner.body.user as { email: string }).email),
    };
  }

  return { scim, api, team };
}

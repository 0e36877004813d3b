import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  registerUser,
  startTestApp,
  type TestApp,
  uniqueSuffix,
} from '../../../../test/helpers/test-app.js';

const PASSWORD = 'a long passphrase';
/** Where app.inject's requests go by default (Host: localhost:80): the service's own origin. */
const OWN_ORIGIN = 'http://localhost';

/** A signed-up user and a browser session of theirs. */
async function signedIn(testApp: TestApp, headers: Record<string, string> = {}) {
  const email = `browser-${uniqueSuffix()}@example.com`;
  const registered = await registerUser(testApp.app, { email, password: PASSWORD });
  const response = await testApp.app.inject({
    method: 'POST',
    url: '/v1/auth/session',
    headers,
    payload: { email, password: PASSWORD },
  });
  const setCookie = String(response.headers['set-cookie'] ?? '');
  const token = /^ka_session=([^;]*);/.exec(setCookie)?.[1] ?? '';
  return {
    ...registered,
    email,
    response,
    setCookie,
    sessionToken: token,
    cookie: { cookie: `ka_session=${token}` },
  };
}

describe('browser sessions: POST and DELETE /v1/auth/session, the cookie beside the bearer header', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp({ env: { ACCESS_TOKEN_TTL_SECONDS: '3600' } });
  });
  afterAll(() => testApp.close());

  /** The team's index jobs: what an upload would have queued. */
  async function jobsOf(teamId: number): Promise<number> {
    const { rows } = await testApp.runtime.database.sql.executeSql(
      'SELECT count(*) AS jobs FROM index_jobs WHERE team_id = $1',
      [teamId],
    );
    return Number(rows[0]?.jobs);
  }

  const upload = (headers: Record<string, string>) =>
    testApp.app.inject({
      method: 'POST',
      url: '/v1/documents',
      headers,
      payload: { documents: [{ external_id: 'note', text: 'A note.' }] },
    });

  it("sets an HttpOnly, SameSite=Strict cookie for the token's lifetime and answers the user_context", async () => {
    const session = await signedIn(testApp);
    expect(session.response.statusCode).toBe(200);
    expect(session.setCookie).toMatch(
      /^ka_session=kat_[\w-]+; Path=\/; HttpOnly; SameSite=Strict; Max-Age=3600$/,
    );
    const me = await testApp.app.inject({ url: '/v1/users/me', headers: bearer(session.token) });
    expect(session.response.json()).toEqual(me.json());
    expect(session.response.body).not.toContain('kat_');
  });

  it('authenticates GET /v1/users/me by the cookie alone', async () => {
    const session = await signedIn(testApp);
    const me = await testApp.app.inject({ url: '/v1/users/me', headers: session.cookie });
    expect(me.statusCode).toBe(200);
    expect(me.json()).toMatchObject({ id: session.userId, email: session.email, team_id: session.teamId });
  });

  it("refuses a cookie POST without this service's Origin (403, nothing done) and takes it with it", async () => {
    const session = await signedIn(testApp);
    for (const origin of [undefined, 'https://evil.example', 'null', 'http://localhost:8080']) {
      const refused = await upload({ ...session.cookie, ...(origin === undefined ? {} : { origin }) });
      expect(refused.statusCode, String(origin)).toBe(403);
      expect(refused.json()).toEqual({ detail: 'Cross-origin request refused' });
    }
    expect(await jobsOf(session.teamId)).toBe(0);

    const accepted = await upload({ ...session.cookie, origin: OWN_ORIGIN });
    expect(accepted.statusCode).toBe(202);
    // A default port spelled out is the same origin.
    expect((await upload({ ...session.cookie, origin: 'http://localhost:80' })).statusCode).toBe(202);
    expect(await jobsOf(session.teamId)).toBe(2);
  });

  it('asks no Origin of bearer-authenticated requests, nor of cookie GETs', async () => {
    const session = await signedIn(testApp);
    expect((await upload(bearer(session.token))).statusCode).toBe(202);
    // Bearer first: a cookie beside it changes nothing.
    expect((await upload({ ...bearer(session.token), ...session.cookie })).statusCode).toBe(202);
    const list = await testApp.app.inject({ url: '/v1/documents', headers: session.cookie });
    expect(list.statusCode).toBe(200);
  });

  it('answers 401 for an unknown cookie, and a wrong bearer token is not rescued by a good cookie', async () => {
    const session = await signedIn(testApp);
    const unknown = await testApp.app.inject({
      url: '/v1/users/me',
      headers: { cookie: 'other=1; ka_session=kat_unknown' },
    });
    expect(unknown.statusCode).toBe(401);
    const wrongBearer = await testApp.app.inject({
      url: '/v1/users/me',
      headers: { ...bearer('kat_wrong'), ...session.cookie },
    });
    expect(wrongBearer.statusCode).toBe(401);
  });

  it('signs out: DELETE revokes the cookie’s token and clears the cookie; the old cookie is then 401', async () => {
    const session = await signedIn(testApp);
    const refused = await testApp.app.inject({
      method: 'DELETE',
      url: '/v1/auth/session',
      headers: { ...session.cookie, origin: 'https://evil.example' },
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.headers['set-cookie']).toBeUndefined();
    expect((await testApp.app.inject({ url: '/v1/users/me', headers: session.cookie })).statusCode).toBe(200);

    const out = await testApp.app.inject({
      method: 'DELETE',
      url: '/v1/auth/session',
      headers: { ...session.cookie, origin: OWN_ORIGIN },
    });
    expect(out.statusCode).toBe(204);
    expect(out.headers['set-cookie']).toBe('ka_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0');
    expect((await testApp.app.inject({ url: '/v1/users/me', headers: session.cookie })).statusCode).toBe(401);
    // The bearer form of the same token is revoked too: it was one token. Other sessions stay.
    const asBearer = await testApp.app.inject({ url: '/v1/users/me', headers: bearer(session.sessionToken) });
    expect(asBearer.statusCode).toBe(401);
    const registration = await testApp.app.inject({ url: '/v1/users/me', headers: bearer(session.token) });
    expect(registration.statusCode).toBe(200);
  });

  it('signs out even without a valid session, and by bearer token', async () => {
    for (const headers of [{}, { cookie: 'ka_session=kat_expired', origin: OWN_ORIGIN }]) {
      const out = await testApp.app.inject({ method: 'DELETE', url: '/v1/auth/session', headers });
      expect(out.statusCode).toBe(204);
      expect(out.headers['set-cookie']).toBe('ka_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0');
    }
    const session = await signedIn(testApp);
    const out = await testApp.app.inject({
      method: 'DELETE',
      url: '/v1/auth/session',
      headers: bearer(session.sessionToken),
    });
    expect(out.statusCode).toBe(204);
    expect((await testApp.app.inject({ url: '/v1/users/me', headers: session.cookie })).statusCode).toBe(401);
  });

  it('refuses a wrong password as POST /v1/auth/token does (401, 422), with no cookie', async () => {
    const session = await signedIn(testApp);
    const wrong = await testApp.app.inject({
      method: 'POST',
      url: '/v1/auth/session',
      payload: { email: session.email, password: 'not the password' },
    });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toEqual({ detail: 'Incorrect e-mail, username or password' });
    expect(wrong.headers['set-cookie']).toBeUndefined();
    const missing = await testApp.app.inject({
      method: 'POST',
      url: '/v1/auth/session',
      payload: { password: PASSWORD },
    });
    expect(missing.statusCode).toBe(422);
    // By username (the e-mail) too, as the token sign-in takes it.
    const byUsername = await testApp.app.inject({
      method: 'POST',
      url: '/v1/auth/session',
      payload: { username: session.email, password: PASSWORD },
    });
    expect(byUsername.statusCode).toBe(200);
  });

  it("refuses a sign-in another site's page posts (login CSRF), and takes one from its own page", async () => {
    const foreign = await signedIn(testApp, { origin: 'https://evil.example' });
    expect(foreign.response.statusCode).toBe(403);
    expect(foreign.setCookie).toBe('');
    const own = await signedIn(testApp, { origin: OWN_ORIGIN });
    expect(own.response.statusCode).toBe(200);
  });

  it('documents both endpoints and the cookie scheme in OpenAPI', async () => {
    const spec = (await testApp.app.inject({ url: '/openapi.json' })).json();
    expect(Object.keys(spec.paths['/v1/auth/session']).sort()).toEqual(['delete', 'post']);
    expect(spec.paths['/v1/auth/session'].post.tags).toEqual(['auth']);
    expect(spec.components.securitySchemes.sessionCookie).toMatchObject({
      type: 'apiKey',
      in: 'cookie',
      name: 'ka_session',
    });
    expect(spec.paths['/v1/users/me'].get.security).toEqual([{ bearerAuth: [] }, { sessionCookie: [] }]);
  });
});

describe('browser sessions over https', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    // Behind a TLS-terminating proxy, the only way a request says it came over https.
    testApp = await startTestApp({ env: { TRUST_PROXY: 'true' } });
  });
  afterAll(() => testApp.close());

  it('marks the cookie Secure, and takes the https origin for unsafe requests', async () => {
    const https = { 'x-forwarded-proto': 'https', host: 'answers.example' };
    const session = await signedIn(testApp, https);
    expect(session.setCookie).toMatch(
      /^ka_session=\S+; Path=\/; HttpOnly; SameSite=Strict; Max-Age=604800; Secure$/,
    );
    const plain = await testApp.app.inject({
      method: 'DELETE',
      url: '/v1/auth/session',
      headers: { ...https, ...session.cookie, origin: 'http://answers.example' },
    });
    expect(plain.statusCode).toBe(403);
    const out = await testApp.app.inject({
      method: 'DELETE',
      url: '/v1/auth/session',
      headers: { ...https, ...session.cookie, origin: 'https://answers.example' },
    });
    expect(out.statusCode).toBe(204);
    expect(out.headers['set-cookie']).toBe(
      'ka_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0; Secure',
    );
  });

  it('sends no Secure over plain http', async () => {
    const session = await signedIn(testApp);
    expect(session.setCookie).not.toContain('Secure');
  });
});

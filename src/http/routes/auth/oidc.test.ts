import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type FakeOidcMisbehaviour,
  type FakeOidcProvider,
  startFakeOidcProvider,
} from '../../../../test/fakes/fake-oidc-provider.js';
import {
  bearer,
  registerUser,
  startTestApp,
  TEST_REGISTRATION_SECRET,
  type TestApp,
  uniqueSuffix,
} from '../../../../test/helpers/test-app.js';

/**
 * A browser, as far as single sign-on needs one: real HTTP requests, redirects followed by hand
 * (each step is checked), and a cookie jar that keeps a cookie's path and drops an expired one.
 * The service's callback address is PUBLIC_URL's; the browser reaches it where the test app listens.
 */
class Browser {
  private readonly cookies = new Map<string, { value: string; path: string }>();

  constructor(private readonly serviceOrigin: string) {}

  cookie(name: string): string | undefined {
    return this.cookies.get(name)?.value;
  }

  setCookie(name: string, value: string, path = '/'): void {
    this.cookies.set(name, { value, path });
  }

  /** One GET, redirects not followed; the answer's cookies are kept. */
  async get(url: string): Promise<Response> {
    const target = new URL(url, this.serviceOrigin);
    const ownService = target.origin === this.serviceOrigin;
    const cookie = ownService
      ? [...this.cookies]
          .filter(([, stored]) => target.pathname.startsWith(stored.path))
          .map(([name, stored]) => `${name}=${stored.value}`)
          .join('; ')
      : '';
    const response = await fetch(target, {
      redirect: 'manual',
      headers: cookie === '' ? {} : { cookie },
    });
    if (ownService) {
      for (const header of response.headers.getSetCookie()) this.keep(header);
    }
    return response;
  }

  private keep(header: string): void {
    const [pair = '', ...attributes] = header.split(';').map((part) => part.trim());
    const equals = pair.indexOf('=');
    const name = pair.slice(0, equals);
    const path = attributes.find((attribute) => /^path=/i.test(attribute))?.slice('path='.length) ?? '/';
    if (attributes.some((attribute) => /^max-age=0$/i.test(attribute))) this.cookies.delete(name);
    else this.cookies.set(name, { value: pair.slice(equals + 1), path });
  }
}

/** The cookie `name` as one answer sets it (the whole Set-Cookie line), if it does. */
function setCookieLine(response: Response, name: string): string | undefined {
  return response.headers.getSetCookie().find((line) => line.startsWith(`${name}=`));
}

const PUBLIC_URL = 'https://answers.example.com';

interface SsoApp {
  readonly testApp: TestApp;
  /** Where the test app listens: the browser's way to PUBLIC_URL. */
  readonly origin: string;
  newBrowser(): Browser;
  /** A browser signed in through the provider as it is now set up; answers the callback's answer. */
  signIn(browser?: Browser, startPath?: string): Promise<{ browser: Browser; callback: Response }>;
  /** The `/?sso_error=` code of a failed sign-in (or null for a success). */
  ssoError(callback: Response): string | null;
  query(sql: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

async function startSsoApp(provider: FakeOidcProvider, env: Record<string, string> = {}): Promise<SsoApp> {
  const testApp = await startTestApp({
    env: {
      PUBLIC_URL,
      OIDC_ISSUER: provider.issuer,
      OIDC_CLIENT_ID: provider.clientId,
      OIDC_CLIENT_SECRET: provider.clientSecret,
      OIDC_DISPLAY_NAME: 'Acme SSO',
      ...env,
    },
  });
  await testApp.app.listen({ host: '127.0.0.1', port: 0 });
  const origin = `http://127.0.0.1:${(testApp.app.server.address() as AddressInfo).port}`;
  const newBrowser = () => new Browser(origin);
  return {
    testApp,
    origin,
    newBrowser,
    async signIn(browser = newBrowser(), startPath = '/v1/auth/oidc/start') {
      const start = await browser.get(startPath);
      expect(start.status).toBe(302);
      const authorization = await browser.get(start.headers.get('location') ?? '');
      expect(authorization.status).toBe(302);
      const back = new URL(authorization.headers.get('location') ?? '');
      expect(`${back.origin}${back.pathname}`).toBe(`${PUBLIC_URL}/v1/auth/oidc/callback`);
      const callback = await browser.get(`${back.pathname}${back.search}`);
      expect(callback.status).toBe(303);
      return { browser, callback };
    },
    ssoError(callback) {
      const location = callback.headers.get('location') ?? '';
      return new URL(location, origin).searchParams.get('sso_error');
    },
    async query(sql, params = []) {
      const { rows } = await testApp.runtime.database.sql.executeSql(sql, params);
      return rows;
    },
    close: () => testApp.close(),
  };
}

/** GET /v1/users/me as this browser (its session cookie), over HTTP. */
async function me(browser: Browser): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await browser.get('/v1/users/me');
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

function person(prefix: string, domain = 'example.com') {
  const suffix = uniqueSuffix();
  return { sub: `sub-${suffix}`, email: `${prefix}-${suffix}@${domain}`, name: `${prefix} ${suffix}` };
}

describe('single sign-on with OpenID Connect against a provider speaking the real protocol', () => {
  let provider: FakeOidcProvider;
  let sso: SsoApp;

  beforeAll(async () => {
    provider = await startFakeOidcProvider();
    sso = await startSsoApp(provider);
  });
  afterAll(async () => {
    await sso?.close();
    await provider?.close();
  });

  it('tells the sign-in page which ways in there are', async () => {
    const response = await sso.newBrowser().get('/v1/auth/methods');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      password: true,
      oidc: { name: 'Acme SSO', start_url: '/v1/auth/oidc/start' },
    });
  });

  it('signs a newcomer in: PKCE, state and nonce to the provider, a session cookie back, a team of their own', async () => {
    const newcomer = person('newcomer');
    provider.setUser(newcomer);
    const browser = sso.newBrowser();
    const start = await browser.get('/v1/auth/oidc/start');
    expect(start.status).toBe(302);
    const login = setCookieLine(start, 'ka_oidc') ?? '';
    expect(login).toMatch(/^ka_oidc=v1\.[^;]+; Path=\/v1\/auth\/oidc; HttpOnly; SameSite=Lax; Max-Age=600$/);
    const authorize = new URL(start.headers.get('location') ?? '');
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${provider.issuer}/authorize`);
    const query = Object.fromEntries(authorize.searchParams);
    expect(query).toMatchObject({
      client_id: provider.clientId,
      response_type: 'code',
      redirect_uri: `${PUBLIC_URL}/v1/auth/oidc/callback`,
      scope: 'openid email profile',
      code_challenge_method: 'S256',
    });
    expect(query.code_challenge).toMatch(/^[\w-]{43}$/);
    expect(query.state?.length).toBeGreaterThan(20);
    expect(query.nonce?.length).toBeGreaterThan(20);
    // The sealed cookie does not show what it holds.
    expect(login).not.toContain(query.state);

    const authorization = await browser.get(authorize.href);
    const back = new URL(authorization.headers.get('location') ?? '');
    const callback = await browser.get(`${back.pathname}${back.search}`);
    expect(callback.status).toBe(303);
    expect(callback.headers.get('location')).toBe('/');
    expect(setCookieLine(callback, 'ka_session')).toMatch(
      /^ka_session=[^;]+; Path=\/; HttpOnly; SameSite=Strict; Max-Age=\d+$/,
    );
    expect(setCookieLine(callback, 'ka_oidc')).toMatch(/^ka_oidc=; Path=\/v1\/auth\/oidc; .*Max-Age=0/);
    expect(browser.cookie('ka_oidc')).toBeUndefined();

    const { status, body } = await me(browser);
    expect(status).toBe(200);
    expect(body).toMatchObject({ email: newcomer.email, role: 'owner' });
    const [user] = await sso.query(
      'SELECT id, name, email_verified_at, password_hash FROM users WHERE email = $1',
      [newcomer.email],
    );
    expect(user?.name).toBe(newcomer.name);
    expect(user?.email_verified_at).not.toBeNull();
    expect(user?.password_hash).toBeNull();
    const links = await sso.query('SELECT provider, provider_account_id FROM accounts WHERE user_id = $1', [
      user?.id,
    ]);
    expect(links).toEqual([{ provider: 'oidc', provider_account_id: newcomer.sub }]);

    // The next sign-in finds the same account by its link, even under a changed address.
    provider.setUser({ ...newcomer, email: `renamed-${newcomer.email}` });
    const again = await sso.signIn();
    expect(sso.ssoError(again.callback)).toBeNull();
    expect((await me(again.browser)).body).toMatchObject({ id: user?.id, email: newcomer.email });
  });

  it.each<[Exclude<FakeOidcMisbehaviour, null>, string, string]>([
    ['unverified_email', 'email_not_verified', 'email_verified'],
    ['wrong_audience', 'invalid_token', '\\"aud\\"'],
    ['wrong_issuer', 'invalid_token', '\\"iss\\"'],
    ['wrong_nonce', 'invalid_token', '\\"nonce\\"'],
    ['expired', 'invalid_token', '\\"exp\\"'],
    ['other_key', 'invalid_token', 'signature verification failed'],
  ])('signs nobody in when the ID token is wrong: %s → %s', async (mode, code, reason) => {
    const someone = person(mode.replace('_', '-'));
    provider.setUser(someone);
    provider.misbehave(mode);
    try {
      const { browser, callback } = await sso.signIn();
      expect(callback.headers.get('location')).toBe(`/?sso_error=${code}`);
      expect(setCookieLine(callback, 'ka_session')).toBeUndefined();
      expect(browser.cookie('ka_oidc')).toBeUndefined();
      expect((await me(browser)).status).toBe(401);
      expect(await sso.query('SELECT id FROM users WHERE email = $1', [someone.email])).toEqual([]);
    } finally {
      provider.misbehave(null);
    }
    // The log says what was wrong (and nothing of the token); the page only which code.
    const logged = sso.testApp.logLines.filter((line) => line.includes(`"ssoError":"${code}"`));
    expect(logged.some((line) => line.includes(reason))).toBe(true);
    expect(logged.join('\n')).not.toMatch(/eyJ[\w-]+\.eyJ/);
  });

  it('comes back to the page the sign-in started from (a consent page), never to another site', async () => {
    provider.setUser(person('returning'));
    const consentPage = '/authorize?client_id=abc&state=x%20y';
    const back = await sso.signIn(
      undefined,
      `/v1/auth/oidc/start?return_to=${encodeURIComponent(consentPage)}`,
    );
    expect(back.callback.headers.get('location')).toBe(consentPage);
    for (const elsewhere of ['//evil.example/x', 'https://evil.example/x', '/\\evil.example', 'authorize']) {
      provider.setUser(person('returning'));
      const start = `/v1/auth/oidc/start?return_to=${encodeURIComponent(elsewhere)}`;
      const { callback } = await sso.signIn(undefined, start);
      expect(callback.headers.get('location'), elsewhere).toBe('/');
    }
  });

  it('says cancelled when the person refuses at the provider, provider_error for its other errors', async () => {
    provider.setUser(person('refuser'));
    try {
      provider.deny('access_denied');
      expect(sso.ssoError((await sso.signIn()).callback)).toBe('cancelled');
      provider.deny('temporarily_unavailable');
      const { callback } = await sso.signIn();
      expect(sso.ssoError(callback)).toBe('provider_error');
      expect(setCookieLine(callback, 'ka_session')).toBeUndefined();
    } finally {
      provider.deny(null);
    }
  });

  it('keeps verifying after the provider rotates its signing key', async () => {
    const rotating = person('rotating');
    provider.setUser(rotating);
    const first = await sso.signIn();
    expect(sso.ssoError(first.callback)).toBeNull();
    provider.rotateKey();
    const second = await sso.signIn();
    expect(sso.ssoError(second.callback)).toBeNull();
    expect((await me(second.browser)).body).toMatchObject({ email: rotating.email });
  });

  it('refuses a callback whose state is not the sign-in under way, or that comes without it', async () => {
    provider.setUser(person('state'));
    const browser = sso.newBrowser();
    const start = await browser.get('/v1/auth/oidc/start');
    const authorization = await browser.get(start.headers.get('location') ?? '');
    const back = new URL(authorization.headers.get('location') ?? '');

    const forged = new URL(back);
    forged.searchParams.set('state', 'someone-elses-state');
    const mismatch = await browser.get(`${forged.pathname}${forged.search}`);
    expect(sso.ssoError(mismatch)).toBe('expired');
    expect(setCookieLine(mismatch, 'ka_session')).toBeUndefined();
    // The login state went with the failure: the genuine answer finds no sign-in under way either.
    const late = await browser.get(`${back.pathname}${back.search}`);
    expect(sso.ssoError(late)).toBe('expired');

    // Another browser (an attacker's link) carries no login state at all; a tampered one is unreadable.
    const stranger = sso.newBrowser();
    expect(sso.ssoError(await stranger.get(`${back.pathname}${back.search}`))).toBe('expired');
    stranger.setCookie('ka_oidc', 'v1.AAAA.BBBB.CCCC', '/v1/auth/oidc');
    expect(sso.ssoError(await stranger.get(`${back.pathname}${back.search}`))).toBe('expired');
  });

  it('refuses a replayed code, even with the login cookie kept back', async () => {
    provider.setUser(person('replay'));
    const browser = sso.newBrowser();
    const start = await browser.get('/v1/auth/oidc/start');
    const login = browser.cookie('ka_oidc') ?? '';
    const authorization = await browser.get(start.headers.get('location') ?? '');
    const back = new URL(authorization.headers.get('location') ?? '');
    const first = await browser.get(`${back.pathname}${back.search}`);
    expect(sso.ssoError(first)).toBeNull();

    const replaying = sso.newBrowser();
    replaying.setCookie('ka_oidc', login, '/v1/auth/oidc');
    const replay = await replaying.get(`${back.pathname}${back.search}`);
    expect(sso.ssoError(replay)).toBe('invalid_token');
    expect(setCookieLine(replay, 'ka_session')).toBeUndefined();
  });

  it('places a newcomer: their directory’s team, else an invitation’s, else their domain’s, else their own', async () => {
    const domain = `corp-${uniqueSuffix()}.example`;
    const directoryTeam = await registerUser(sso.testApp.app, {}, bearer(TEST_REGISTRATION_SECRET));
    const invitingTeam = await registerUser(sso.testApp.app, {}, bearer(TEST_REGISTRATION_SECRET));
    const domainTeam = await registerUser(sso.testApp.app, {}, bearer(TEST_REGISTRATION_SECRET));
    await sso.query('INSERT INTO team_sign_in_domains (domain, team_id) VALUES ($1, $2)', [
      domain,
      domainTeam.teamId,
    ]);
    const invite = async (email: string, role: 'member' | 'admin') => {
      const response = await sso.testApp.app.inject({
        method: 'POST',
        url: '/v1/teams/invitations',
        headers: bearer(invitingTeam.token),
        payload: { email, role },
      });
      expect(response.statusCode).toBe(201);
    };
    const provision = (email: string, active = true, deleted = false) =>
      sso.query(
        `INSERT INTO scim_users (id, team_id, user_name, active, deleted_at)
         VALUES ($1, $2, $3, $4, CASE WHEN $5 THEN now() END)`,
        [randomUUID(), directoryTeam.teamId, email, active, deleted],
      );
    const placementOf = async (someone: ReturnType<typeof person>) => {
      provider.setUser(someone);
      const { browser, callback } = await sso.signIn();
      expect(sso.ssoError(callback)).toBeNull();
      const { body } = await me(browser);
      return { teamId: body.team_id, role: body.role, userId: body.id };
    };

    // Provisioned, invited and in a claimed domain: the directory wins.
    const provisioned = person('provisioned', domain);
    await provision(provisioned.email);
    await invite(provisioned.email, 'admin');
    const inDirectory = await placementOf(provisioned);
    expect(inDirectory).toMatchObject({ teamId: directoryTeam.teamId, role: 'member' });
    expect(
      await sso.query('SELECT user_id FROM scim_users WHERE user_name = $1', [provisioned.email]),
    ).toEqual([{ user_id: inDirectory.userId }]);

    // Invited (as an admin) and in a claimed domain: the invitation, with its role, used up.
    const invited = person('invited', domain);
    await invite(invited.email, 'admin');
    const byInvitation = await placementOf(invited);
    expect(byInvitation).toMatchObject({ teamId: invitingTeam.teamId, role: 'admin' });
    expect(
      await sso.query('SELECT accepted_by FROM team_invitations WHERE email = $1', [invited.email]),
    ).toEqual([{ accepted_by: byInvitation.userId }]);

    // Only the domain: a member of the team that claims it.
    expect(await placementOf(person('colleague', domain))).toMatchObject({
      teamId: domainTeam.teamId,
      role: 'member',
    });

    // Nothing: a team of their own.
    const outsider = await placementOf(person('outsider', `elsewhere-${uniqueSuffix()}.example`));
    expect(outsider.role).toBe('owner');
    expect([directoryTeam.teamId, invitingTeam.teamId, domainTeam.teamId]).not.toContain(outsider.teamId);
  });

  it('takes over an account someone else registered with the address and never proved', async () => {
    const victim = person('victim');
    const squatter = await registerUser(sso.testApp.app, {
      type: 'credentials',
      provider: undefined,
      provider_account_id: undefined,
      email: victim.email,
      password: 'squatters-password',
    });
    provider.setUser(victim);
    const { browser, callback } = await sso.signIn();
    expect(sso.ssoError(callback)).toBeNull();
    const { body } = await me(browser);
    expect(body).toMatchObject({ id: squatter.userId, email: victim.email });

    // The squatter's way in is gone: their token, their password.
    const squattersToken = await sso.testApp.app.inject({
      url: '/v1/users/me',
      headers: bearer(squatter.token),
    });
    expect(squattersToken.statusCode).toBe(401);
    const squattersPassword = await sso.testApp.app.inject({
      method: 'POST',
      url: '/v1/auth/token',
      payload: { email: victim.email, password: 'squatters-password' },
    });
    expect(squattersPassword.statusCode).toBe(401);
    const [user] = await sso.query('SELECT email_verified_at, password_hash FROM users WHERE id = $1', [
      squatter.userId,
    ]);
    expect(user?.email_verified_at).not.toBeNull();
    expect(user?.password_hash).toBeNull();
  });

  it('signs in an existing proven account by its address and links the provider', async () => {
    const registered = await registerUser(sso.testApp.app, {}, bearer(TEST_REGISTRATION_SECRET));
    const [row] = await sso.query('SELECT email FROM users WHERE id = $1', [registered.userId]);
    const existing = { sub: `sub-${uniqueSuffix()}`, email: String(row?.email) };
    provider.setUser(existing);
    const { browser, callback } = await sso.signIn();
    expect(sso.ssoError(callback)).toBeNull();
    expect((await me(browser)).body).toMatchObject({
      id: registered.userId,
      team_id: registered.teamId,
    });
    // Their earlier sessions go on working: nothing was taken over.
    const earlier = await sso.testApp.app.inject({ url: '/v1/users/me', headers: bearer(registered.token) });
    expect(earlier.statusCode).toBe(200);
    expect(
      await sso.query("SELECT provider_account_id FROM accounts WHERE user_id = $1 AND provider = 'oidc'", [
        registered.userId,
      ]),
    ).toEqual([{ provider_account_id: existing.sub }]);
  });

  it('refuses a person the directory turned off or deleted, account or not', async () => {
    const team = await registerUser(sso.testApp.app, {}, bearer(TEST_REGISTRATION_SECRET));
    const provision = (email: string, active: boolean, deleted: boolean) =>
      sso.query(
        `INSERT INTO scim_users (id, team_id, user_name, active, deleted_at)
         VALUES ($1, $2, $3, $4, CASE WHEN $5 THEN now() END)`,
        [randomUUID(), team.teamId, email, active, deleted],
      );
    const inactive = person('inactive');
    await provision(inactive.email, false, false);
    const deleted = person('deleted');
    await provision(deleted.email, true, true);
    for (const someone of [inactive, deleted]) {
      provider.setUser(someone);
      const { browser, callback } = await sso.signIn();
      expect(sso.ssoError(callback)).toBe('account_disabled');
      expect((await me(browser)).status).toBe(401);
      expect(await sso.query('SELECT id FROM users WHERE email = $1', [someone.email])).toEqual([]);
    }

    // Someone who signed in before, then was turned off.
    const leaver = person('leaver');
    await provision(leaver.email, true, false);
    provider.setUser(leaver);
    const before = await sso.signIn();
    expect(sso.ssoError(before.callback)).toBeNull();
    await sso.query('UPDATE scim_users SET active = false WHERE user_name = $1', [leaver.email]);
    const after = await sso.signIn();
    expect(sso.ssoError(after.callback)).toBe('account_disabled');
    expect(setCookieLine(after.callback, 'ka_session')).toBeUndefined();
  });
});

describe('single sign-on settings', () => {
  it('answers 404 at the sign-on routes when it is not configured, and the sign-in page shows passwords only', async () => {
    const testApp = await startTestApp();
    try {
      const methods = await testApp.app.inject({ url: '/v1/auth/methods' });
      expect(methods.json()).toEqual({ password: true, oidc: null });
      for (const url of ['/v1/auth/oidc/start', '/v1/auth/oidc/callback?code=x&state=y']) {
        const response = await testApp.app.inject({ url });
        expect(response.statusCode).toBe(404);
        expect(response.json()).toEqual({ detail: 'Single sign-on is not configured' });
      }
    } finally {
      await testApp.close();
    }
  });

  it('turns passwords off: sign-in, sign-up and resets are 403, the front end and the provider still sign people in', async () => {
    const provider = await startFakeOidcProvider();
    const sso = await startSsoApp(provider, { PASSWORD_SIGN_IN: 'false' });
    try {
      const { app } = sso.testApp;
      expect((await app.inject({ url: '/v1/auth/methods' })).json()).toEqual({
        password: false,
        oidc: { name: 'Acme SSO', start_url: '/v1/auth/oidc/start' },
      });
      // The trusted front end still registers (with a password, even).
      const email = `front-end-${uniqueSuffix()}@example.com`;
      const trusted = await registerUser(
        app,
        { email, password: 'a long passphrase' },
        bearer(TEST_REGISTRATION_SECRET),
      );
      const refused = 'Password sign-in is turned off: sign in with Acme SSO';
      for (const request of [
        { method: 'POST' as const, url: '/v1/auth/token', payload: { email, password: 'a long passphrase' } },
        {
          method: 'POST' as const,
          url: '/v1/auth/session',
          payload: { email, password: 'a long passphrase' },
        },
        {
          method: 'POST' as const,
          url: '/v2/users/register',
          payload: { email: `signup-${uniqueSuffix()}@example.com`, password: 'a long passphrase' },
        },
        { method: 'POST' as const, url: '/v1/auth/password-reset', payload: { email } },
        {
          method: 'POST' as const,
          url: '/v1/auth/password-reset/confirm',
          payload: { code: 'x', new_password: 'another passphrase' },
        },
        {
          method: 'POST' as const,
          url: '/v1/auth/password',
          headers: bearer(trusted.token),
          payload: { current_password: 'a long passphrase', new_password: 'another passphrase' },
        },
      ]) {
        const response = await app.inject(request);
        expect(response.statusCode, request.url).toBe(403);
        expect(response.json(), request.url).toEqual({ detail: refused });
      }
      expect(await sso.query('SELECT id FROM users WHERE email LIKE $1', ['signup-%'])).toEqual([]);

      provider.setUser(person('sso-only'));
      const { browser, callback } = await sso.signIn();
      expect(sso.ssoError(callback)).toBeNull();
      expect((await me(browser)).status).toBe(200);
    } finally {
      await sso.close();
      await provider.close();
    }
  });

  it('starts without a reachable provider, says so in the log, and finds it once it answers', async () => {
    const port = await freePort();
    const logged: string[] = [];
    const logger = {
      info: (_: object, message: string) => logged.push(message),
      warn: (_: object, message: string) => logged.push(message),
      error: (_: object, message: string) => logged.push(message),
    };
    const testApp = await startTestApp({
      env: {
        PUBLIC_URL,
        OIDC_ISSUER: `http://127.0.0.1:${port}`,
        OIDC_CLIENT_ID: 'knowledge-answers',
        OIDC_CLIENT_SECRET: 'the-client-secret',
      },
      overrides: { logger },
    });
    let provider: FakeOidcProvider | undefined;
    try {
      await expect
        .poll(() => logged.find((line) => line.startsWith('single sign-on is unavailable')))
        .toBeDefined();
      const message = logged.find((line) => line.startsWith('single sign-on is unavailable')) ?? '';
      expect(message).toContain(`http://127.0.0.1:${port}/.well-known/openid-configuration`);
      expect(message).not.toContain('the-client-secret');

      // Password users are served meanwhile.
      const email = `password-${uniqueSuffix()}@example.com`;
      await registerUser(
        testApp.app,
        { email, password: 'a long passphrase' },
        bearer(TEST_REGISTRATION_SECRET),
      );
      const token = await testApp.app.inject({
        method: 'POST',
        url: '/v1/auth/token',
        payload: { email, password: 'a long passphrase' },
      });
      expect(token.statusCode).toBe(200);

      const down = await testApp.app.inject({ url: '/v1/auth/oidc/start' });
      expect(down.statusCode).toBe(303);
      expect(down.headers.location).toBe('/?sso_error=provider_unreachable');

      // The provider comes up: the next start discovers it.
      provider = await startFakeOidcProvider({ clientSecret: 'the-client-secret', port });
      const up = await testApp.app.inject({ url: '/v1/auth/oidc/start' });
      expect(up.statusCode).toBe(302);
      expect(String(up.headers.location)).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/authorize\\?`));
    } finally {
      await testApp.close();
      await provider?.close();
    }
  });
});

/** A port nothing listens on (one the system just handed out and took back). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

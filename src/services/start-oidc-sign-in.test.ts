import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOidcProvider, startFakeOidcProvider } from '../../test/fakes/fake-oidc-provider.js';
import { startTestApp, type TestApp, uniqueSuffix } from '../../test/helpers/test-app.js';
import { refusal } from '../../test/helpers/use-case-harness.js';
import { signInWithOidc } from './sign-in-with-oidc.js';
import { OIDC_LOGIN_TTL_SECONDS, openLoginState, startOidcSignIn } from './start-oidc-sign-in.js';

describe('startOidcSignIn: a fresh authorization request and its sealed login state', () => {
  let provider: FakeOidcProvider;
  let testApp: TestApp;

  beforeAll(async () => {
    provider = await startFakeOidcProvider();
    testApp = await startTestApp({
      env: {
        OIDC_ISSUER: provider.issuer,
        OIDC_CLIENT_ID: provider.clientId,
        OIDC_CLIENT_SECRET: provider.clientSecret,
        OIDC_SCOPES: 'openid email',
      },
    });
  });
  afterAll(async () => {
    await testApp?.close();
    await provider?.close();
  });

  it('seals a new state, nonce and verifier for every start, each matching the request the provider gets', async () => {
    const deps = testApp.runtime.deps;
    const first = await startOidcSignIn(deps);
    const second = await startOidcSignIn(deps);
    if (!first.ok || !second.ok) throw new Error('start failed');
    expect(first.maxAgeSeconds).toBe(OIDC_LOGIN_TTL_SECONDS);
    const login = openLoginState(deps, first.sealedLogin, deps.now());
    const other = openLoginState(deps, second.sealedLogin, deps.now());
    expect(login).toBeDefined();
    expect(login?.state).not.toBe(other?.state);
    expect(login?.nonce).not.toBe(other?.nonce);
    expect(login?.codeVerifier).not.toBe(other?.codeVerifier);
    const request = new URL(first.redirectUrl).searchParams;
    expect(request.get('state')).toBe(login?.state);
    expect(request.get('nonce')).toBe(login?.nonce);
    expect(request.get('scope')).toBe('openid email');
    // The challenge is the verifier's S256, not the verifier: it never leaves the sealed state.
    expect(first.redirectUrl).not.toContain(login?.codeVerifier);
  });

  it('lets a login state go stale after ten minutes: the callback is then `expired`', async () => {
    const deps = testApp.runtime.deps;
    provider.setUser({ sub: `sub-${uniqueSuffix()}`, email: `slow-${uniqueSuffix()}@example.com` });
    const started = await startOidcSignIn(deps);
    if (!started.ok) throw new Error(started.detail);
    const back = new URL(
      (await fetch(started.redirectUrl, { redirect: 'manual' })).headers.get('location') ?? '',
    );
    const later = new Date(deps.now().getTime() + (OIDC_LOGIN_TTL_SECONDS + 1) * 1000);
    expect(openLoginState(deps, started.sealedLogin, later)).toBeUndefined();
    const result = await signInWithOidc(
      { ...deps, now: () => later },
      { sealedLogin: started.sealedLogin, parameters: back.searchParams },
    );
    expect(result).toMatchObject({ ok: false, failure: 'expired' });
  });

  it('is a 404 without single sign-on configured', async () => {
    const error = await refusal(startOidcSignIn({ ...testApp.runtime.deps, oidc: undefined }), 'not_found');
    expect(error.message).toBe('Single sign-on is not configured');
  });
});

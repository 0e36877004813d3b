import { describe, expect, it } from 'vitest';
import { ssoStartHref } from './sso-start';

describe('ssoStartHref', () => {
  it('is the start URL alone on the home page', () => {
    expect(ssoStartHref('/v1/auth/oidc/start', '/', '')).toBe('/v1/auth/oidc/start');
  });

  it('carries the page and its query back, encoded', () => {
    expect(ssoStartHref('/v1/auth/oidc/start', '/authorize', '?client_id=a&state=x y')).toBe(
      '/v1/auth/oidc/start?return_to=%2Fauthorize%3Fclient_id%3Da%26state%3Dx%20y',
    );
    expect(ssoStartHref('/v1/auth/oidc/start?prompt=login', '/tokens', '')).toBe(
      '/v1/auth/oidc/start?prompt=login&return_to=%2Ftokens',
    );
  });
});

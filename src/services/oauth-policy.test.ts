import { describe, expect, it } from 'vitest';
import { isMcpResource, pkceChallengeOf, redirectUriMatches, redirectUriProblem } from './oauth-policy.js';
import { localReturnPath } from './start-oidc-sign-in.js';

describe('OAuth policy', () => {
  it('registers https and loopback http redirect URIs only', () => {
    for (const uri of [
      'https://claude.ai/api/mcp/auth_callback',
      'http://localhost:6274/oauth/callback',
      'http://127.0.0.1/callback',
      'http://[::1]:9000/cb',
    ]) {
      expect(redirectUriProblem(uri), uri).toBeUndefined();
    }
    for (const uri of [
      'http://example.com/cb',
      'http://localhost.evil.example/cb',
      'cursor://anysphere/cb',
      'javascript:alert(1)',
      'https://user:pass@client.example/cb',
      'https://client.example/cb#x',
      '/relative',
    ]) {
      expect(redirectUriProblem(uri), uri).toBeDefined();
    }
  });

  it('matches a loopback redirect URI on any port, anything else exactly', () => {
    expect(redirectUriMatches('http://127.0.0.1:3000/cb', 'http://127.0.0.1:51234/cb')).toBe(true);
    expect(redirectUriMatches('http://localhost/cb', 'http://localhost:8080/cb')).toBe(true);
    expect(redirectUriMatches('http://127.0.0.1:3000/cb', 'http://127.0.0.1:3000/other')).toBe(false);
    expect(redirectUriMatches('http://127.0.0.1:3000/cb', 'http://localhost:3000/cb')).toBe(false);
    expect(redirectUriMatches('https://app.example/cb', 'https://app.example:8443/cb')).toBe(false);
    expect(redirectUriMatches('https://app.example/cb', 'https://app.example/cb?x=1')).toBe(false);
    expect(redirectUriMatches('https://app.example/cb', 'https://app.example/cb')).toBe(true);
  });

  it('computes S256 as RFC 7636 appendix B does', () => {
    expect(pkceChallengeOf('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe(
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    );
  });

  it('takes the MCP resource with or without a trailing slash, nothing else', () => {
    expect(isMcpResource('https://k.example', 'https://k.example/mcp')).toBe(true);
    expect(isMcpResource('https://k.example', 'https://k.example/mcp/')).toBe(true);
    expect(isMcpResource('https://k.example', 'https://k.example')).toBe(false);
    expect(isMcpResource('https://k.example', 'https://other.example/mcp')).toBe(false);
  });

  it("sends a sign-in back only to this service's own paths", () => {
    expect(localReturnPath('/authorize?client_id=a&state=b')).toBe('/authorize?client_id=a&state=b');
    for (const path of [
      '//evil.example',
      '/\\evil.example',
      'https://evil.example',
      'evil',
      '/a\nb',
      undefined,
    ]) {
      expect(localReturnPath(path), String(path)).toBeUndefined();
    }
  });
});

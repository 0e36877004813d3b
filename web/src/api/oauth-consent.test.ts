import { describe, expect, it } from 'vitest';
import { authorizationRequestOf } from './oauth-consent';

describe('authorizationRequestOf', () => {
  it('keeps the authorization request’s fields as given', () => {
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: '0b6c1f1e-5d1a-4c55-9a57-8c1f4b0c2a11',
      redirect_uri: 'http://127.0.0.1:5173/callback?x=1',
      code_challenge: 'a'.repeat(43),
      code_challenge_method: 'S256',
      state: 'a b&c',
      scope: 'mcp',
      resource: 'https://answers.example/mcp',
    });
    expect(authorizationRequestOf(query)).toEqual(Object.fromEntries(query));
  });

  it('leaves out other parameters, and any given twice', () => {
    const query = new URLSearchParams('client_id=abc&state=1&state=2&sso_error=expired&scope=');
    expect(authorizationRequestOf(query)).toEqual({ client_id: 'abc', scope: '' });
  });
});

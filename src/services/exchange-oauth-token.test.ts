import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/helpers/test-app.js';
import { rejectionOf, signedInUser } from '../../test/helpers/use-case-harness.js';
import { decideOAuthConsent } from './decide-oauth-consent.js';
import { exchangeOAuthToken } from './exchange-oauth-token.js';
import { forgetExpiredAuthRecords } from './forget-expired-auth-records.js';
import { listConnectedClients } from './list-connected-clients.js';
import { OAuthError } from './oauth-error.js';
import { AUTHORIZATION_CODE_TTL_SECONDS, REFRESH_TOKEN_TTL_SECONDS } from './oauth-policy.js';
import { registerOAuthClient } from './oauth-register-client.js';

const REDIRECT_URI = 'http://localhost:8765/callback';

describe('exchangeOAuthToken', () => {
  let testApp: TestApp;
  /** The service's clock, moved on by the tests (the database keeps its own for token lookups). */
  let now = new Date();

  beforeAll(async () => {
    // A long cache: only the exchange's own forgetting can stop a revoked token at once.
    testApp = await startTestApp({ env: { AUTH_CACHE_TTL_SECONDS: '300' }, overrides: { now: () => now } });
  });
  afterAll(() => testApp.close());

  async function codeFor() {
    const { deps } = testApp.runtime;
    const person = await signedInUser(testApp);
    const client = await registerOAuthClient(
      deps,
      { client_name: 'Zed', redirect_uris: [REDIRECT_URI] },
      `10.0.0.${Math.floor(Math.random() * 250)}`,
    );
    const verifier = randomBytes(40).toString('base64url');
    const decided = await decideOAuthConsent(
      deps,
      person.caller,
      {
        response_type: 'code',
        client_id: client.client_id,
        redirect_uri: REDIRECT_URI,
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
      },
      true,
    );
    const code = new URL(decided.redirect_to).searchParams.get('code') ?? '';
    const request = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      client_id: client.client_id,
      code_verifier: verifier,
    };
    return { person, clientId: client.client_id, request };
  }

  async function oauthCodeOf(promise: Promise<unknown>): Promise<string> {
    const error = await rejectionOf(promise);
    expect(error).toBeInstanceOf(OAuthError);
    return (error as OAuthError).oauthCode;
  }

  it('refuses a code past its five minutes', async () => {
    const { deps } = testApp.runtime;
    const { request } = await codeFor();
    now = new Date(now.getTime() + (AUTHORIZATION_CODE_TTL_SECONDS + 1) * 1000);
    expect(await oauthCodeOf(exchangeOAuthToken(deps, request))).toBe('invalid_grant');
  });

  it('gives tokens to exactly one of two exchanges of the same code racing, and revokes them', async () => {
    const { deps } = testApp.runtime;
    const { request, person } = await codeFor();
    const outcomes = await Promise.allSettled([
      exchangeOAuthToken(deps, request),
      exchangeOAuthToken(deps, request),
    ]);
    const won = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    expect(won).toHaveLength(1);
    // The loser came second: a replay, so the winner's tokens are revoked too, even from the cache.
    const tokens = won[0]?.status === 'fulfilled' ? won[0].value : undefined;
    if (tokens === undefined) throw new Error('no winner');
    expect(await deps.callers.find(tokens.access_token)).toBeUndefined();
    expect((await listConnectedClients(deps, person.caller)).clients).toEqual([]);
  });

  it('drops a cached access token at once when a replay revokes it', async () => {
    const { deps } = testApp.runtime;
    const { request } = await codeFor();
    const tokens = await exchangeOAuthToken(deps, request);
    expect((await deps.callers.find(tokens.access_token))?.tokenKind).toBe('oauth');
    expect(await oauthCodeOf(exchangeOAuthToken(deps, request))).toBe('invalid_grant');
    expect(await deps.callers.find(tokens.access_token)).toBeUndefined();
  });

  it('lists the connection with its client, and the hourly sweep forgets it once its refresh token is long expired', async () => {
    const { deps } = testApp.runtime;
    const { request, person, clientId } = await codeFor();
    const tokens = await exchangeOAuthToken(deps, request);
    const listed = await listConnectedClients(deps, person.caller);
    expect(listed.clients).toMatchObject([{ client_id: clientId, client_name: 'Zed' }]);

    now = new Date(now.getTime() + (REFRESH_TOKEN_TTL_SECONDS + 2 * 24 * 3600) * 1000);
    await forgetExpiredAuthRecords(deps);
    expect((await listConnectedClients(deps, person.caller)).clients).toEqual([]);
    expect(
      await oauthCodeOf(
        exchangeOAuthToken(deps, {
          grant_type: 'refresh_token',
          refresh_token: tokens.refresh_token,
          client_id: clientId,
        }),
      ),
    ).toBe('invalid_grant');
  });
});

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/helpers/test-app.js';
import { refusal, signedInUser } from '../../test/helpers/use-case-harness.js';
import { createPersonalToken } from './create-personal-token.js';
import { listPersonalTokens } from './list-personal-tokens.js';
import { revokePersonalToken } from './revoke-personal-token.js';

describe('revokePersonalToken', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    // A long cache: only the revocation's own forgetting can stop the token at once.
    testApp = await startTestApp({ env: { AUTH_CACHE_TTL_SECONDS: '300' } });
  });
  afterAll(() => testApp.close());

  it('stops the token at once, even while its caller is cached, and leaves the others working', async () => {
    const { deps } = testApp.runtime;
    const user = await signedInUser(testApp);
    const revoked = await createPersonalToken(deps, user.caller, { name: 'old laptop' });
    const kept = await createPersonalToken(deps, user.caller, { name: 'new laptop' });
    expect(await deps.callers.find(revoked.token)).toBeDefined();
    await revokePersonalToken(deps, user.caller, revoked.id.toUpperCase());
    expect(await deps.callers.find(revoked.token)).toBeUndefined();
    expect(await deps.callers.find(kept.token)).toBeDefined();
    expect(await deps.callers.find(user.token)).toBeDefined();
    expect((await listPersonalTokens(deps, user.caller)).tokens.map((token) => token.id)).toEqual([kept.id]);
    await refusal(revokePersonalToken(deps, user.caller, revoked.id), 'not_found');
  });

  it("answers 404 for another user's token, an unknown id and a malformed one", async () => {
    const { deps } = testApp.runtime;
    const owner = await signedInUser(testApp);
    const stranger = await signedInUser(testApp);
    const made = await createPersonalToken(deps, owner.caller, { name: 'mine' });
    for (const id of [made.id, randomUUID(), 'not-a-uuid', '']) {
      await refusal(revokePersonalToken(deps, stranger.caller, id), 'not_found');
    }
    expect(await deps.callers.find(made.token)).toBeDefined();
    expect((await listPersonalTokens(deps, owner.caller)).tokens).toHaveLength(1);
  });
});

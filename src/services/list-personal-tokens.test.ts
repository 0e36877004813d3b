import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/helpers/test-app.js';
import { signedInUser } from '../../test/helpers/use-case-harness.js';
import { createPersonalToken } from './create-personal-token.js';
import { listPersonalTokens } from './list-personal-tokens.js';

describe('listPersonalTokens', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp();
  });
  afterAll(() => testApp.close());

  it("lists only the caller's own live personal tokens, newest first, never a secret or a session", async () => {
    const { deps } = testApp.runtime;
    const user = await signedInUser(testApp);
    const other = await signedInUser(testApp);
    const first = await createPersonalToken(deps, user.caller, { name: 'first' });
    const second = await createPersonalToken(deps, user.caller, { name: 'second', expires_in_days: 10 });
    const expired = await createPersonalToken(deps, user.caller, { name: 'expired', expires_in_days: 1 });
    await createPersonalToken(deps, other.caller, { name: 'not yours' });
    await testApp.runtime.database.sql.executeSql(
      `UPDATE access_tokens SET expires_at = now() - interval '1 second' WHERE public_id = $1`,
      [expired.id],
    );
    // The user's registration gave them a session too (user.token): sessions are not listed.

    const { tokens } = await listPersonalTokens(deps, user.caller);
    expect(tokens).toEqual([
      {
        id: second.id,
        name: 'second',
        created_at: second.created_at,
        expires_at: second.expires_at,
        last_used_at: null,
      },
      { id: first.id, name: 'first', created_at: first.created_at, expires_at: null, last_used_at: null },
    ]);
    expect(JSON.stringify(tokens)).not.toContain(first.token);
  });
});

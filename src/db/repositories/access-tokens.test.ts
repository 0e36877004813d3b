import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import { signedInUser } from '../../../test/helpers/use-case-harness.js';
import { hashAccessToken } from '../../security/access-tokens.js';
import { createPersonalToken } from '../../services/create-personal-token.js';

describe('markTokensUsed', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp();
  });
  afterAll(() => testApp.close());

  const lastUsed = async (publicId: string): Promise<Date | null> => {
    const { rows } = await testApp.runtime.database.sql.executeSql<{ last_used_at: Date | string | null }>(
      'SELECT last_used_at FROM access_tokens WHERE public_id = $1',
      [publicId],
    );
    const value = rows[0]?.last_used_at ?? null;
    return value === null ? null : new Date(value);
  };

  it('writes a personal token’s use at most once a minute, and never a session’s', async () => {
    const { deps, database } = testApp.runtime;
    const user = await signedInUser(testApp);
    const made = await createPersonalToken(deps, user.caller, { name: 'cli' });
    const hash = hashAccessToken(made.token);

    await deps.data.accessTokens.markTokensUsed([hash, user.caller.tokenHash]);
    const first = await lastUsed(made.id);
    expect(first).not.toBeNull();
    const { rows: sessions } = await database.sql.executeSql(
      'SELECT last_used_at FROM access_tokens WHERE token_hash = $1',
      [user.caller.tokenHash],
    );
    expect(sessions).toEqual([{ last_used_at: null }]);

    // Within the minute: unchanged.
    await database.sql.executeSql(
      `UPDATE access_tokens SET last_used_at = now() - interval '30 seconds' WHERE public_id = $1`,
      [made.id],
    );
    const recent = await lastUsed(made.id);
    await deps.data.accessTokens.markTokensUsed([hash]);
    expect(await lastUsed(made.id)).toEqual(recent);

    // A minute on: written again.
    await database.sql.executeSql(
      `UPDATE access_tokens SET last_used_at = now() - interval '2 minutes' WHERE public_id = $1`,
      [made.id],
    );
    const old = await lastUsed(made.id);
    await deps.data.accessTokens.markTokensUsed([hash]);
    expect((await lastUsed(made.id))?.getTime()).toBeGreaterThan(old?.getTime() ?? 0);
  });
});

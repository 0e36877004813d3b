import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/helpers/test-app.js';
import { refusal, signedInUser } from '../../test/helpers/use-case-harness.js';
import { createPersonalToken, MAX_PERSONAL_TOKENS } from './create-personal-token.js';
import { listPersonalTokens } from './list-personal-tokens.js';

const DAY_MS = 24 * 60 * 60 * 1000;

describe('createPersonalToken', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp();
  });
  afterAll(() => testApp.close());

  it('makes a bearer token that finds the caller, stored only as a hash', async () => {
    const { deps } = testApp.runtime;
    const user = await signedInUser(testApp);
    const made = await createPersonalToken(deps, user.caller, { name: 'cli', expires_in_days: 7 });
    const found = await deps.callers.find(made.token);
    expect(found).toMatchObject({ userId: user.caller.userId, teamId: user.caller.teamId });
    const { rows } = await testApp.runtime.database.sql.executeSql<{ token_hash: string; kind: string }>(
      'SELECT token_hash, kind FROM access_tokens WHERE public_id = $1',
      [made.id],
    );
    expect(rows).toEqual([{ token_hash: found?.tokenHash, kind: 'personal' }]);
    expect(rows[0]?.token_hash).not.toContain(made.token);
  });

  it(`allows ${MAX_PERSONAL_TOKENS} live tokens a user, even asked for at once; expired ones do not count`, async () => {
    const { deps } = testApp.runtime;
    const user = await signedInUser(testApp);
    const attempts = await Promise.allSettled(
      Array.from({ length: MAX_PERSONAL_TOKENS + 5 }, (_, index) =>
        createPersonalToken(deps, user.caller, { name: `token ${index}` }),
      ),
    );
    const made = attempts.flatMap((attempt) => (attempt.status === 'fulfilled' ? [attempt.value] : []));
    expect(made).toHaveLength(MAX_PERSONAL_TOKENS);
    const over = await refusal(createPersonalToken(deps, user.caller, { name: 'one more' }), 'conflict');
    expect(over.message).toContain('revoke one');
    // Another user's count is their own.
    const other = await signedInUser(testApp);
    await createPersonalToken(deps, other.caller, { name: 'theirs' });

    await testApp.runtime.database.sql.executeSql(
      `UPDATE access_tokens SET expires_at = now() - interval '1 second' WHERE public_id = $1`,
      [made[0]?.id],
    );
    await createPersonalToken(deps, user.caller, { name: 'after expiry' });
    expect((await listPersonalTokens(deps, user.caller)).tokens).toHaveLength(MAX_PERSONAL_TOKENS);
  });

  it('refuses a blank or long name and an expiry outside 1..3650 days, naming the field', async () => {
    const { deps } = testApp.runtime;
    const user = await signedInUser(testApp);
    for (const [input, loc] of [
      [{ name: ' \t ' }, 'name'],
      [{ name: 'y'.repeat(101) }, 'name'],
      [{ name: 'ci', expires_in_days: 0 }, 'expires_in_days'],
      [{ name: 'ci', expires_in_days: 3651 }, 'expires_in_days'],
      [{ name: 'ci', expires_in_days: 2.5 }, 'expires_in_days'],
    ] as const) {
      const refused = await refusal(createPersonalToken(deps, user.caller, input), 'validation');
      expect(refused.options.issues?.map((issue) => issue.loc)).toEqual([['body', loc]]);
    }
    expect((await listPersonalTokens(deps, user.caller)).tokens).toEqual([]);
  });
});

describe('createPersonalToken on the app’s clock', () => {
  // The app's clock two days behind the database's: a token for one day is made already expired.
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp({ overrides: { now: () => new Date(Date.now() - 2 * DAY_MS) } });
  });
  afterAll(() => testApp.close());

  it('counts the expiry from the app’s clock, and an expired token finds nobody', async () => {
    const { deps } = testApp.runtime;
    const user = await signedInUser(testApp);
    const expired = await createPersonalToken(deps, user.caller, { name: 'old', expires_in_days: 1 });
    expect(Date.parse(expired.expires_at ?? '') - Date.parse(expired.created_at)).toBe(DAY_MS);
    expect(Date.parse(expired.expires_at ?? '')).toBeLessThan(Date.now());
    expect(await deps.callers.find(expired.token)).toBeUndefined();
    const live = await createPersonalToken(deps, user.caller, { name: 'new', expires_in_days: 3 });
    expect(await deps.callers.find(live.token)).toMatchObject({ userId: user.caller.userId });
    expect((await listPersonalTokens(deps, user.caller)).tokens.map((token) => token.name)).toEqual(['new']);
  });
});

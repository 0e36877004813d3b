import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startTestApp,
  TEST_REGISTRATION_SECRET,
  type TestApp,
  uniqueSuffix,
} from '../../test/helpers/test-app.js';
import { refusal } from '../../test/helpers/use-case-harness.js';
import { getUserContext } from './get-user-context.js';
import { registerUser } from './register-user.js';

const FROM = { bearerToken: undefined, clientAddress: '203.0.113.7' };

describe('registerUser', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp();
  });
  afterAll(() => testApp.close());

  it('creates a user with their own team and vector store, signed in by the token it answers', async () => {
    const { deps } = testApp.runtime;
    const email = `Ann.${uniqueSuffix()}@Example.com`;
    const result = await registerUser(deps, { email, password: 'ann-password', name: 'Ann' }, FROM);
    expect(result.created).toBe(true);
    expect(result.body.user).toMatchObject({ email: email.toLowerCase(), name: 'Ann' });
    // Nobody vouched for the address and there is no mail server: it stays unproven.
    expect(result.body.email_verification).toBe('unverified');
    const caller = await deps.callers.find(result.body.access_token);
    expect(caller).toMatchObject({ userId: result.body.user.id, teamId: result.body.team.id });
    const context = await getUserContext(deps, caller ?? expect.fail('no caller'));
    expect(context.vector_store).toMatchObject({
      id: result.body.vector_store.id,
      namespaces: [`team-${result.body.team.id}`],
    });
    const other = await registerUser(
      deps,
      { email: `bo-${uniqueSuffix()}@example.com`, password: 'bo-password' },
      FROM,
    );
    expect(other.body.team.id).not.toBe(result.body.team.id);
  });

  it('counts the address as proven only when the front end’s secret vouches for it', async () => {
    const { deps } = testApp.runtime;
    const trusted = await registerUser(
      deps,
      {
        provider: 'google',
        provider_account_id: `g-${uniqueSuffix()}`,
        email: `cy-${uniqueSuffix()}@example.com`,
      },
      { bearerToken: TEST_REGISTRATION_SECRET, clientAddress: FROM.clientAddress },
    );
    expect(trusted.body.email_verification).toBe('verified');
    const wrongSecret = await registerUser(
      deps,
      {
        provider: 'google',
        provider_account_id: `g-${uniqueSuffix()}`,
        email: `di-${uniqueSuffix()}@example.com`,
      },
      { bearerToken: 'not-the-secret', clientAddress: FROM.clientAddress },
    );
    expect(wrongSecret.body.email_verification).toBe('unverified');
  });

  it('refuses a second registration of an e-mail without proof, and refreshes it with the password', async () => {
    const { deps } = testApp.runtime;
    const email = `eve-${uniqueSuffix()}@example.com`;
    const first = await registerUser(deps, { email, password: 'eve-password' }, FROM);
    const again = await refusal(registerUser(deps, { email, password: 'wrong-password' }, FROM), 'conflict');
    expect(again.message).toContain('already registered');
    const refreshed = await registerUser(deps, { email, password: 'eve-password', name: 'Eve' }, FROM);
    expect(refreshed.created).toBe(false);
    expect(refreshed.body.user).toMatchObject({ id: first.body.user.id, name: 'Eve' });
    expect(refreshed.body.team.id).toBe(first.body.team.id);
  });

  it('reports every problem of a password sign-up in one validation error', async () => {
    const error = await refusal(
      registerUser(testApp.runtime.deps, { email: 'not-an-address', password: 'short' }, FROM),
      'validation',
    );
    expect(error.options.issues?.map((issue) => issue.loc)).toEqual([
      ['body', 'email'],
      ['body', 'password'],
    ]);
  });
});
